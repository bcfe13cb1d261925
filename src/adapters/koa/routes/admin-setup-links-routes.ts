import type { Middleware } from 'koa';
import { AdministrationProblem } from '../../../application/administration/administration-problem.js';
import type { ManageConnections } from '../../../application/administration/manage-connections.js';
import {
  SETUP_LINK_DEFAULT_DAYS,
  SETUP_LINK_MAX_DAYS,
  type SetupLinks,
} from '../../../application/portal/setup-links.js';
import { isConnectionName } from '../../../domain/connections/connection.js';
import type { Endpoint } from '../endpoint.js';
import { sendJson } from '../json-answer.js';
import { readJsonBody } from '../read-json.js';
import { adminActor, adminEndpoints, organizationInPath } from './admin-answers.js';
import { RoutePaths } from './route-paths.js';

export interface AdminSetupLinksDeps {
  links: SetupLinks;
  manage: ManageConnections;
  caller: Middleware;
  /** `Hosting:PublicOrigin` (empty: the request's own): the link's URL is on it. */
  publicOrigin: string;
}

/**
 * `POST /api/admin/organizations/{organization}/setup-links` (body: optional `connection`,
 * the connection's name, by default the organization's when it is a usable name, and
 * `days`, 1 to 30, default 7) answers 201 `{ id, url, expiresAt }`: the URL, with its
 * one-time token, is in this answer only. `DELETE .../setup-links/{id}` revokes one (204).
 * Both behind the administration API's policy and keys, audited.
 */
export function adminSetupLinksRoutes(deps: AdminSetupLinksDeps): Endpoint[] {
  const endpoint = adminEndpoints(deps.caller);
  const actor = adminActor;
  return [
    endpoint('POST', RoutePaths.adminSetupLinks, async (ctx) => {
      const organization = organizationInPath(ctx);
      const body = await readJsonBody(ctx);
      const { connection, days } = linkRequest(body, organization);
      await refuseAnotherOrganizations(deps.manage, connection, organization);
      const { link, token } = await deps.links.create(organization, connection, days, actor(ctx));
      const origin = deps.publicOrigin || `${ctx.protocol}://${ctx.host}`;
      ctx.status = 201;
      ctx.set('cache-control', 'no-store');
      sendJson(ctx, {
        id: link.id,
        url: `${origin}${RoutePaths.setupLink.replace(':token', token)}`,
        connection: link.connection,
        expiresAt: new Date(link.expiresAt).toISOString(),
      });
    }),
    endpoint('DELETE', RoutePaths.adminSetupLink, async (ctx) => {
      const revoked = await deps.links.revoke(organizationInPath(ctx), String(ctx.params.id ?? ''), actor(ctx));
      if (!revoked) {
        throw new AdministrationProblem(
          'not-found',
          'setup_link.not_found',
          'The organization has no such setup link.',
        );
      }
      ctx.status = 204;
    }),
  ];
}

function linkRequest(body: unknown, organization: string): { connection: string; days: number } {
  const fields =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const unknown = Object.keys(fields).filter((key) => key !== 'connection' && key !== 'days');
  const connection = fields.connection ?? (isConnectionName(organization) ? organization : undefined);
  const days = fields.days ?? SETUP_LINK_DEFAULT_DAYS;
  const problems = [
    ...unknown.map((key) => ({ key, message: 'is not a key this request takes' })),
    ...(typeof connection === 'string' && isConnectionName(connection)
      ? []
      : [
          {
            key: 'connection',
            message: 'names the connection to set up: letters, digits and "-", starting with a letter',
          },
        ]),
    ...(Number.isInteger(days) && (days as number) >= 1 && (days as number) <= SETUP_LINK_MAX_DAYS
      ? []
      : [{ key: 'days', message: `is a whole number of days from 1 to ${SETUP_LINK_MAX_DAYS}` }]),
  ];
  if (problems.length > 0)
    throw new AdministrationProblem('invalid', 'request.invalid', 'The setup link cannot be made so.', problems);
  return { connection: connection as string, days: days as number };
}

/** A link may set up a new connection or one of its own organization's: never another's, nor the operator's. */
async function refuseAnotherOrganizations(
  manage: ManageConnections,
  connection: string,
  organization: string,
): Promise<void> {
  let view;
  try {
    view = await manage.get(connection);
  } catch (error) {
    if (error instanceof AdministrationProblem && error.kind === 'not-found') return;
    throw error;
  }
  if (view.managedBy !== 'api' || view.keys.Organization !== organization) {
    throw new AdministrationProblem(
      'conflict',
      'setup_link.connection_taken',
      "A connection of that name exists and is not this organization's to set up: choose another name.",
      [{ key: 'connection', message: 'is the name of a connection of another organization or of the operator' }],
    );
  }
}
