import type { Context, Middleware } from 'koa';
import { AdministrationProblem } from '../../../application/administration/administration-problem.js';
import type { ManageConnections } from '../../../application/administration/manage-connections.js';
import type { CertificateExpiry } from '../../../application/connections/certificate-expiry.js';
import type { SignInAttempt, SignInAttempts } from '../../../application/connections/sign-in-attempts.js';
import { isConnectionName } from '../../../domain/connections/connection.js';
import { isGatehouseError } from '../../../domain/errors.js';
import type { Endpoint } from '../endpoint.js';
import { sendJson } from '../json-answer.js';
import { adminEndpoints } from './admin-answers.js';
import { RoutePaths } from './route-paths.js';

export interface AdminConnectionStatusDeps {
  manage: ManageConnections;
  caller: Middleware;
  attempts: SignInAttempts;
  /** Absent where there are no connections: every name is then unknown. */
  certificates?: CertificateExpiry;
}

/**
 * How a connection is doing, for staff and provisioning jobs (docs/connections.md):
 * `GET .../connections/{name}/attempts`, its last 100 sign-in attempts of the last 30
 * days, newest first (`at`, `outcome`, the refusal's `code` and `reason`, the e-mail
 * domain, the subject's SHA-256: nothing personal beyond that), and
 * `GET .../connections/{name}/certificates`, its identity provider's signing certificates
 * (`subject`, `notAfter`, `daysLeft`), soonest expiring first. Behind the administration
 * API's policy and keys, like every endpoint of it.
 */
export function adminConnectionStatusRoutes(deps: AdminConnectionStatusDeps): Endpoint[] {
  const admin = adminEndpoints(deps.caller);
  const endpoint = (path: string, handler: (ctx: Context) => Promise<void>): Endpoint => admin('GET', path, handler);
  return [
    endpoint(RoutePaths.adminConnectionAttempts, async (ctx) => {
      const view = await deps.manage.get(nameOf(ctx));
      const organization = typeof view.keys.Organization === 'string' ? view.keys.Organization : '';
      const attempts = await deps.attempts.recent({ organization, connection: view.name });
      ctx.set('cache-control', 'no-store');
      sendJson(ctx, { attempts: attempts.map(attemptView) });
    }),
    endpoint(RoutePaths.adminConnectionCertificates, async (ctx) => {
      const name = nameOf(ctx);
      let certificates;
      try {
        certificates = await deps.certificates?.of(name);
      } catch (error) {
        if (!isGatehouseError(error)) throw error;
        throw new AdministrationProblem(
          'unavailable',
          'connection.keys_unreadable',
          "The identity provider's signing keys cannot be read now (its metadata or key set): try again later.",
        );
      }
      if (certificates === undefined) {
        throw new AdministrationProblem('not-found', 'connection.not_found', 'No connection of that name is in force.');
      }
      ctx.set('cache-control', 'no-store');
      sendJson(ctx, certificates);
    }),
  ];
}

/** An attempt as the API answers it: its time in ISO 8601. */
export function attemptView(attempt: SignInAttempt): Record<string, unknown> {
  return { ...attempt, at: new Date(attempt.at).toISOString() };
}

function nameOf(ctx: Context): string {
  const name = String(ctx.params.name ?? '');
  if (!isConnectionName(name)) {
    throw new AdministrationProblem('not-found', 'connection.not_found', 'No connection has that name.');
  }
  return name;
}
