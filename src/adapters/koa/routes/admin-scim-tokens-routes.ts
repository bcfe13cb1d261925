import type { Middleware } from 'koa';
import { AdministrationProblem } from '../../../application/administration/administration-problem.js';
import type { OrganizationConnections } from '../../../application/directory/directory-sessions.js';
import { MAX_TOKENS_PER_ORGANIZATION, type ScimTokens } from '../../../application/directory/scim-tokens.js';
import type { Endpoint } from '../endpoint.js';
import { sendJson } from '../json-answer.js';
import { scimBaseUrl } from '../scim/scim-request.js';
import { adminActor, adminEndpoints, organizationInPath } from './admin-answers.js';
import { RoutePaths } from './route-paths.js';

export interface AdminScimTokensDeps {
  tokens: ScimTokens;
  connections: Pick<OrganizationConnections, 'of'>;
  caller: Middleware;
  /** `Hosting:PublicOrigin` (empty: the request's own): the base URL is on it. */
  publicOrigin: string;
}

/**
 * An organization's SCIM tokens, behind the administration API's policy and keys:
 * `POST .../scim-tokens` answers 201 `{ id, token, baseUrl, createdAt }` (the token in
 * this answer only), `GET` lists ids and times, `DELETE .../scim-tokens/{id}` revokes. A
 * token is made only for an organization some connection signs in for (a mistyped name
 * gets 404, not a token nobody can use), two at most (409: revoke one first).
 */
export function adminScimTokensRoutes(deps: AdminScimTokensDeps): Endpoint[] {
  const endpoint = adminEndpoints(deps.caller);
  const knownOrganization = (organization: string) => {
    if (deps.connections.of(organization).length === 0) {
      throw new AdministrationProblem(
        'not-found',
        'organization.not_found',
        'No connection signs in for that organization: add its connection first.',
      );
    }
  };
  return [
    endpoint('POST', RoutePaths.adminScimTokens, async (ctx) => {
      const organization = organizationInPath(ctx);
      knownOrganization(organization);
      const made = await deps.tokens.create(organization, adminActor(ctx));
      if (made.kind === 'full') {
        throw new AdministrationProblem(
          'conflict',
          'scim_token.too_many',
          `The organization holds ${MAX_TOKENS_PER_ORGANIZATION} tokens already: revoke the one the directory no longer uses first.`,
        );
      }
      ctx.status = 201;
      ctx.set('cache-control', 'no-store');
      sendJson(ctx, {
        id: made.id,
        token: made.token,
        baseUrl: `${scimBaseUrl(ctx, deps.publicOrigin, organization)}/`,
        createdAt: new Date(made.createdAt).toISOString(),
      });
    }),
    endpoint('GET', RoutePaths.adminScimTokens, async (ctx) => {
      const organization = organizationInPath(ctx);
      knownOrganization(organization);
      const tokens = await deps.tokens.list(organization);
      sendJson(ctx, {
        tokens: tokens.map((token) => ({
          id: token.id,
          createdAt: new Date(token.createdAt).toISOString(),
          ...(token.lastUsedAt === undefined ? {} : { lastUsedAt: new Date(token.lastUsedAt).toISOString() }),
        })),
      });
    }),
    endpoint('DELETE', RoutePaths.adminScimToken, async (ctx) => {
      const revoked = await deps.tokens.revoke(organizationInPath(ctx), String(ctx.params.id ?? ''), adminActor(ctx));
      if (!revoked) {
        throw new AdministrationProblem('not-found', 'scim_token.not_found', 'The organization has no such token.');
      }
      ctx.status = 204;
    }),
  ];
}
