import type { Context, Middleware } from 'koa';
import { auditRequest } from '../audit-request.js';
import { authorize } from '../../../domain/authorization/endpoint-metadata.js';
import { PolicyNames } from '../../../domain/authorization/policy-names.js';
import type { Endpoint } from '../endpoint.js';
import { adminActorOf } from './admin-caller.js';
import { AdministrationProblem, type ProblemKind } from '../../../application/administration/administration-problem.js';
import { PROBLEM_JSON_TYPE, sendJson } from '../json-answer.js';
import { statusTitle } from '../problem-details.js';

const STATUS: Readonly<Record<ProblemKind, number>> = {
  invalid: 422,
  conflict: 409,
  'not-found': 404,
  unavailable: 503,
};

/** Runs a handler; an AdministrationProblem becomes its problem details, anything else goes to the error page's handler. */
export async function answering(ctx: Context, handler: (ctx: Context) => Promise<void>): Promise<void> {
  try {
    await handler(ctx);
  } catch (error) {
    if (!(error instanceof AdministrationProblem)) throw error;
    const status = STATUS[error.kind];
    ctx.status = status;
    if (error.kind === 'unavailable') ctx.set('retry-after', '5');
    sendJson(
      ctx,
      {
        type: 'about:blank',
        title: statusTitle(status),
        status,
        detail: error.detail,
        code: error.code,
        ...(error.problems.length > 0 ? { problems: error.problems } : {}),
        ...error.facts,
      },
      PROBLEM_JSON_TYPE,
    );
  }
}

/**
 * The maker of the administration API's endpoints: each behind the ManageConnections policy
 * and the callers' check (admin-caller.ts), its refusals answered as problem details.
 */
export function adminEndpoints(caller: Middleware) {
  return (method: Endpoint['method'], path: string, handler: (ctx: Context) => Promise<void>): Endpoint => ({
    method,
    path,
    metadata: authorize(PolicyNames.ManageConnections),
    authenticate: caller,
    handler: (ctx) => answering(ctx, handler),
  });
}

/** Who asked, as the use cases audit it. */
export function adminActor(ctx: Context) {
  return { id: adminActorOf(ctx), request: auditRequest(ctx) };
}

/** The organization a path names (`/api/admin/organizations/{organization}/...`): bounded, no control characters. */
export function organizationInPath(ctx: Context): string {
  const organization = String(ctx.params.organization ?? '');
  if (organization === '' || organization.length > 200 || /\p{Cc}/u.test(organization)) {
    throw new AdministrationProblem(
      'invalid',
      'request.invalid',
      'The organization is at most 200 characters, without control characters.',
    );
  }
  return organization;
}
