import type { Context, Middleware } from 'koa';
import { decideEndpointAccess, type AccessContext } from '../../../domain/authorization/decide-access.js';
import { validateReturnUrl } from '../../../domain/return-url.js';
import type { AuditLog } from '../../../application/ports/audit-log.js';
import type { Telemetry } from '../../../application/ports/telemetry.js';
import { subjectOf } from '../../../domain/claims/principal.js';
import { auditRequest } from '../audit-request.js';
import type { Endpoint } from '../endpoint.js';
import { sendProblem, wantsJson } from '../problem-details.js';
import { renderError } from '../render-error.js';
import { answerStepUp } from '../step-up-challenge.js';
import type { PolicyRegistry } from '../../../domain/authorization/policies.js';
import type { EndpointMetadata } from '../../../domain/authorization/endpoint-metadata.js';

export interface ChallengeOptions {
  /** `ProjectTemplate:Authentication:DefaultChallengeScheme`: `Cookies`, or a provider's scheme. */
  challengeScheme: string;
  /** `Hosting:PublicOrigin` (empty: the request's own): a form's page to return to after a step-up must be on it. */
  publicOrigin: string;
  /** The time, for policies on the age of the sign-in; read only by endpoints that have one. */
  now: () => number;
}

/**
 * The authorization check in front of one endpoint, from its metadata. Anonymous
 * endpoints get none. Browsers are challenged (302 to the login page, or straight to the
 * default challenge provider) or sent to the access-denied page; API clients get 401/403
 * problem details, never a redirect.
 */
export function authorizeEndpoint(
  endpoint: Endpoint,
  access: AccessContext,
  options: ChallengeOptions,
  audit: AuditLog,
  /** Counts each decision (`gatehouse.authorization.attempts`) when telemetry is on; absent, nothing is counted. */
  telemetry?: Telemetry,
): Middleware | undefined {
  if (endpoint.metadata?.kind === 'anonymous') return undefined;
  // The endpoint's policies, named once: the attribute every decision here carries.
  const policy = policyLabel(endpoint, access.requireAuthenticatedUserByDefault);
  // Only an endpoint whose policies ask something of the sign-in reads the clock (docs/performance.md).
  const timed = asksForAuthentication(endpoint.metadata, access.policies);
  return async function authorize(ctx, next) {
    // The route's parameters, for requirements that name what they protect (`:organization`).
    const routeParameters: Record<string, string> = ctx.params ?? {};
    const resource = timed ? { routeParameters, now: options.now() } : { routeParameters };
    const decision = decideEndpointAccess(endpoint.metadata, ctx.state.principal, access, resource);
    telemetry?.count('gatehouse.authorization.attempts', { policy, result: RESULTS[decision.outcome] });
    if (decision.outcome === 'allow') return next();
    if (decision.outcome === 'challenge') return challenge(ctx, options);
    const principal = ctx.state.principal;
    audit.record({
      type: 'access.denied',
      request: auditRequest(ctx),
      subject: principal ? subjectOf(principal) : undefined,
      policies: decision.failed,
      ...(decision.outcome === 'step_up' ? { code: 'auth.step_up_required' } : {}),
    });
    if (decision.outcome === 'step_up' && principal) {
      return answerStepUp(ctx, principal, { ...decision, policies: decision.failed }, options.publicOrigin);
    }
    if (!access.authenticationEnabled) return refuseDisabled(ctx);
    if (wantsJson(ctx))
      return sendProblem(
        ctx,
        403,
        'Access denied',
        'You are signed in but not allowed to use this resource.',
        'auth.forbidden',
      );
    ctx.redirect('/Account/AccessDenied');
  };
}

// A step-up (a fresher or stronger sign-in asked for) is a result of its own: an operator tells
// "asked to prove more" apart from both "not signed in" and "refused".
const RESULTS = { allow: 'allowed', challenge: 'challenged', forbid: 'denied', step_up: 'step_up' } as const;

/** `default` (authorize() without names), `fallback` (no metadata), or the policy names, in the order declared. */
function policyLabel(endpoint: Endpoint, requireAuthenticatedUserByDefault: boolean): string {
  if (endpoint.metadata === undefined) return requireAuthenticatedUserByDefault ? 'fallback' : 'none';
  if (endpoint.metadata.kind !== 'authorize' || endpoint.metadata.policies.length === 0) return 'default';
  return [...new Set(endpoint.metadata.policies)].join(',');
}

function challenge(ctx: Context, options: ChallengeOptions): void {
  if (wantsJson(ctx)) {
    sendProblem(ctx, 401, 'Sign-in required', 'Sign in to use this resource.', 'auth.unauthenticated');
    return;
  }
  const returnUrl = encodeURIComponent(validateReturnUrl(ctx.originalUrl));
  ctx.redirect(
    options.challengeScheme === 'Cookies'
      ? `/Account/Login?returnUrl=${returnUrl}`
      : `/External/Challenge?provider=${encodeURIComponent(options.challengeScheme)}&returnUrl=${returnUrl}`,
  );
}

/** With authentication switched off nobody can sign in: say so instead of looping through a login page. */
async function refuseDisabled(ctx: Context): Promise<void> {
  const detail = 'Authentication is disabled in this deployment, so no one can be signed in to use this resource.';
  if (wantsJson(ctx)) return sendProblem(ctx, 403, 'Access denied', detail, 'auth.disabled');
  await renderError(ctx, { status: 403, code: 'auth.disabled', detail });
}

/** True when a policy the metadata names asks something of the sign-in (age, method, class). */
function asksForAuthentication(metadata: EndpointMetadata | undefined, policies: PolicyRegistry): boolean {
  if (metadata?.kind !== 'authorize') return false;
  return metadata.policies.some(
    (name) => policies.get(name)?.requirements.some((requirement) => requirement.kind === 'authentication') === true,
  );
}
