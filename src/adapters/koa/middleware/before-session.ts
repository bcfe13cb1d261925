import type { Middleware } from 'koa';
import type { Endpoint } from '../endpoint.js';
import { onFirstUse } from '../on-first-use.js';

/**
 * What answers before any session is read: the probes (exact paths, GET and HEAD) and the
 * static files of `publicDir`. Probes touch no store and set no cookie; static files are
 * outside endpoint authorization (docs: Authorization rules, 7).
 *
 * Only GET and HEAD requests whose last path segment has a file extension (`/styles.css`)
 * go to koa-static: it asks the file system about every request it sees (a stat on the
 * thread pool), and routed paths (`/`, `/api/...`) never name a file. Every file under
 * public/ needs an extension. koa-static is imported at the first such request.
 */
export function beforeSession(options: {
  probes: readonly Endpoint[];
  publicDir: string;
  production: boolean;
}): Middleware {
  const probes = new Map<string, Middleware>();
  for (const probe of options.probes) {
    // Nothing before the session can check a policy: only anonymous GET endpoints belong here.
    if (probe.method !== 'GET' || probe.metadata?.kind !== 'anonymous' || /[:{*]/.test(probe.path)) {
      throw new Error(
        `${probe.method} ${probe.path} cannot run before the session: only anonymous GET probes at fixed paths can`,
      );
    }
    probes.set(probe.path, probe.handler);
  }
  const send = onFirstUse(async () => {
    const { default: serve } = await import('koa-static');
    return serve(options.publicDir, {
      index: false,
      hidden: false,
      defer: false,
      maxage: options.production ? 60 * 60 * 1000 : 0,
    });
  });
  return async function answerBeforeSession(ctx, next) {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const probe = probes.get(ctx.path);
    if (probe) return probe(ctx, next);
    if (ctx.path.lastIndexOf('.') > ctx.path.lastIndexOf('/')) return (await send())(ctx, next);
    return next();
  };
}
