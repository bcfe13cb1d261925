import type { Context } from 'koa';
import type { ConnectionStatus } from '../../../application/connections/connection-adapters.js';
import type { CheckReadiness } from '../../../application/use-cases/check-readiness.js';
import { isLoopbackClient } from '../../../domain/client-key.js';
import { allowAnonymous } from '../../../domain/authorization/endpoint-metadata.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from './route-paths.js';
import { sendJson } from '../json-answer.js';

/**
 * Infrastructure probes (anonymous; restrict them at the ingress in production). They
 * run before session handling, so they touch no store and set no cookie, and their
 * bodies name no host, version or connection string. Readiness names the connections
 * (which are the customers) only to a caller on this host: anyone else is told how many
 * are in each state.
 */
export function healthRoutes(readiness: CheckReadiness): Endpoint[] {
  const probe = (path: string, handler: (ctx: Context) => Promise<void> | void): Endpoint => ({
    method: 'GET',
    path,
    metadata: allowAnonymous(),
    beforeSession: true,
    handler: async (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      await handler(ctx);
    },
  });
  return [
    // Liveness checks nothing outside the process: a Redis outage must not restart every replica.
    probe(RoutePaths.healthLive, (ctx) => {
      sendJson(ctx, { status: 'live' });
    }),
    probe(RoutePaths.healthReady, async (ctx) => {
      const report = await readiness.execute();
      ctx.status = report.ready ? 200 : 503;
      sendJson(ctx, {
        status: report.ready ? 'ready' : 'unavailable',
        checks: report.checks,
        ...(report.connections ? connectionDetail(report.connections, isLoopbackClient(ctx.ip)) : {}),
      });
    }),
    probe(RoutePaths.health, async (ctx) => {
      const report = await readiness.execute();
      ctx.status = report.ready ? 200 : 503;
      sendJson(ctx, { status: report.ready ? 'healthy' : 'unhealthy', checks: { live: 'up', ...report.checks } });
    }),
  ];
}

/**
 * The connections' states: by name for a caller on this host (the client address as
 * `Hosting:TrustProxy` defines it, so a proxy on this host does not make everyone local),
 * as counts by state for anyone else.
 */
function connectionDetail(
  connections: Record<string, ConnectionStatus>,
  local: boolean,
): { connections?: Record<string, ConnectionStatus>; connectionCounts: Partial<Record<ConnectionStatus, number>> } {
  const connectionCounts: Partial<Record<ConnectionStatus, number>> = {};
  for (const status of Object.values(connections)) connectionCounts[status] = (connectionCounts[status] ?? 0) + 1;
  return local ? { connections, connectionCounts } : { connectionCounts };
}
