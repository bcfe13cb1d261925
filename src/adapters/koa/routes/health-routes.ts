import type { Context } from 'koa';
import type { CheckReadiness } from '../../../application/use-cases/check-readiness.js';
import { allowAnonymous } from '../../../domain/authorization/endpoint-metadata.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from './route-paths.js';
import { sendJson } from '../json-answer.js';

/**
 * Infrastructure probes (anonymous; restrict them at the ingress in production). They
 * run before session handling, so they touch no store and set no cookie, and their
 * bodies name no host, version or connection string.
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
        ...(report.connections ? { connections: report.connections } : {}),
      });
    }),
    probe(RoutePaths.health, async (ctx) => {
      const report = await readiness.execute();
      ctx.status = report.ready ? 200 : 503;
      sendJson(ctx, { status: report.ready ? 'healthy' : 'unhealthy', checks: { live: 'up', ...report.checks } });
    }),
  ];
}
