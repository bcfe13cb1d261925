import type { Context, Middleware } from 'koa';
import { AdministrationProblem } from '../../../application/administration/administration-problem.js';
import type { ManageConnections } from '../../../application/administration/manage-connections.js';
import { isConnectionName } from '../../../domain/connections/connection.js';
import type { Endpoint } from '../endpoint.js';
import { sendJson } from '../json-answer.js';
import { readJsonBody } from '../read-json.js';
import { adminActor, adminEndpoints } from './admin-answers.js';
import type { AdminSchemas } from './admin-schemas.js';
import { RoutePaths } from './route-paths.js';

export interface AdminConnectionsDeps {
  manage: ManageConnections;
  /** The callers' check (admin-caller.ts): limits, API keys, anti-forgery. */
  caller: Middleware;
  schemas: AdminSchemas;
  /** The OpenAPI document, built once from the same schemas. */
  openApi: object;
}

/**
 * The administration API's endpoints (docs/connections.md, The administration API), each
 * behind the ManageConnections policy and the callers' check. The body is the connection
 * file's keys everywhere; every refusal is problem details (RFC 9457) with a stable `code`
 * and, where keys are at fault, `problems: [{ key, message }]` naming them as the start's
 * checks do. A version travels in `ETag` / `If-Match` (or the body's `version`): a write
 * based on another version is a 409.
 */
export function adminConnectionsRoutes(deps: AdminConnectionsDeps): Endpoint[] {
  const { manage, schemas } = deps;
  const endpoint = adminEndpoints(deps.caller);
  const actor = adminActor;
  return [
    endpoint('GET', RoutePaths.adminOpenApi, async (ctx) => sendJson(ctx, deps.openApi)),
    endpoint('GET', RoutePaths.adminConnections, async (ctx) => {
      const query = schemas.listQuery(ctx.query);
      const page = await manage.list(query);
      sendJson(ctx, { connections: page.connections, ...(page.next ? { next: page.next } : {}) });
    }),
    endpoint('GET', RoutePaths.adminConnection, async (ctx) => {
      const view = await manage.get(nameOf(ctx));
      if (view.version !== undefined) ctx.set('etag', `"${view.version}"`);
      sendJson(ctx, view);
    }),
    endpoint('PUT', RoutePaths.adminConnection, async (ctx) => {
      const body = schemas.connectionBody(await readJsonBody(ctx));
      const expected = expectedVersion(ctx, body.version);
      const { view, created } = await manage.put(nameOf(ctx), body, expected, actor(ctx));
      ctx.status = created ? 201 : 200;
      if (view.version !== undefined) ctx.set('etag', `"${view.version}"`);
      sendJson(ctx, view);
    }),
    endpoint('PATCH', RoutePaths.adminConnection, async (ctx) => {
      const body = schemas.enabledPatch(await readJsonBody(ctx));
      const view = await manage.setEnabled(nameOf(ctx), body.Enabled, expectedVersion(ctx, body.version), actor(ctx));
      if (view.version !== undefined) ctx.set('etag', `"${view.version}"`);
      sendJson(ctx, view);
    }),
    endpoint('DELETE', RoutePaths.adminConnection, async (ctx) => {
      await manage.remove(nameOf(ctx), expectedVersion(ctx, undefined), actor(ctx));
      ctx.status = 204;
    }),
    endpoint('GET', RoutePaths.adminConnectionDomains, async (ctx) => {
      sendJson(ctx, await manage.domains(nameOf(ctx)));
    }),
    endpoint('POST', RoutePaths.adminConnectionDomainVerify, async (ctx) => {
      sendJson(ctx, await manage.verifyDomain(nameOf(ctx), domainOf(ctx), expectedVersion(ctx, undefined), actor(ctx)));
    }),
    endpoint('DELETE', RoutePaths.adminConnectionDomain, async (ctx) => {
      await manage.removeDomain(nameOf(ctx), domainOf(ctx), expectedVersion(ctx, undefined), actor(ctx));
      ctx.status = 204;
    }),
  ];
}

/** The route's connection name: a name no connection can have is none (404), never a path to anything. */
function nameOf(ctx: Context): string {
  const name = String(ctx.params.name ?? '');
  if (!isConnectionName(name)) {
    throw new AdministrationProblem('not-found', 'connection.not_found', 'No connection has that name.');
  }
  return name;
}

function domainOf(ctx: Context): string {
  const domain = String(ctx.params.domain ?? '');
  if (domain === '' || domain.length > 253) {
    throw new AdministrationProblem('not-found', 'domain.not_found', 'The connection has no such domain.');
  }
  return domain;
}

/**
 * The version a write is based on: `If-Match: "3"` (the ETag a read answered), else the
 * body's `version`; `If-None-Match: *` is a create only (version 0); none, the version
 * read just before the write (the API still refuses a write that crosses another).
 */
function expectedVersion(ctx: Context, bodyVersion: number | undefined): number | undefined {
  if (ctx.get('if-none-match').trim() === '*') return 0;
  const ifMatch = ctx.get('if-match').trim();
  if (ifMatch === '') return bodyVersion;
  const version = /^(?:W\/)?"?(\d{1,9})"?$/.exec(ifMatch)?.[1];
  if (version === undefined) {
    throw new AdministrationProblem(
      'invalid',
      'request.if_match_invalid',
      'If-Match holds the ETag a read of the connection answered, such as "3".',
    );
  }
  return Number(version);
}
