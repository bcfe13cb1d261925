import type { IdentityProviders } from '../../../application/identity-providers.js';
import { authorize } from '../../../domain/authorization/endpoint-metadata.js';
import { PolicyNames } from '../../../domain/authorization/policy-names.js';
import type { AuthorizationSettings, SessionSettings } from '../../../domain/settings/settings.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from './route-paths.js';
import { administratorAppInfo, type AppInfo } from './app-info-routes.js';

export interface AdminRouteDeps {
  info: AppInfo;
  now: () => number;
  providers: Pick<IdentityProviders, 'listed' | 'connectionReport'>;
  authorization: AuthorizationSettings;
  session: SessionSettings;
}

/**
 * `GET /Admin`: the sample of an HTML page behind a named policy. The metadata is the
 * whole declaration: a signed-in user without an administrator role is sent to the
 * access-denied page before the handler runs, an anonymous browser to the login page.
 *
 * The page shows how the running application is set up, picked field by field so that no
 * secret setting (the Redis URL, cookie keys, client secrets) can ever reach the view.
 * Each connection's state by name is here, for administrators, where readiness tells
 * anyone off this host the counts only (the connections are the customers).
 */
export function adminRoutes(deps: AdminRouteDeps): Endpoint[] {
  return [
    {
      method: 'GET',
      path: RoutePaths.admin,
      metadata: authorize(PolicyNames.AdministratorRole),
      handler: async (ctx) => {
        const info = administratorAppInfo(deps.info, deps.now());
        const connections = await deps.providers.connectionReport();
        await ctx.render('admin', {
          policyName: PolicyNames.AdministratorRole,
          app: {
            ...info,
            uptime: describeUptime(info.uptimeSeconds),
            memoryMegabytes: Math.round(info.memoryRssBytes / (1024 * 1024)),
          },
          providers: deps.providers.listed().map(({ displayName, scheme, callbackPath }) => ({
            displayName,
            scheme,
            callbackPath,
          })),
          connections:
            connections &&
            Object.entries(connections)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([name, state]) => ({ name, state })),
          authorization: {
            requireAuthenticatedUserByDefault: deps.authorization.RequireAuthenticatedUserByDefault,
            roleClaimType: deps.authorization.RoleClaimType,
            administratorRoles: deps.authorization.AdministratorRoles,
          },
          session: {
            store: deps.session.Store,
            idleMinutes: Math.round(deps.session.IdleTimeout / 60),
            absoluteHours: Math.round((deps.session.AbsoluteLifetime / 3600) * 10) / 10,
          },
        });
      },
    },
  ];
}

/** "42 s", "5 min", "3 h 12 min", "2 d 4 h": as precise as a glance needs. */
function describeUptime(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const hours = Math.floor(minutes / 60);
  const days = Math.floor(hours / 24);
  if (days > 0) return `${days} d ${hours % 24} h`;
  if (hours > 0) return `${hours} h ${minutes % 60} min`;
  if (minutes > 0) return `${minutes} min`;
  return `${seconds} s`;
}
