import type { Context, Middleware } from 'koa';
import type { Endpoint } from '../endpoint.js';
import { LoadedOnce } from '../../loaded-once.js';

/**
 * What answers before any session is read: the probes (exact paths, GET and HEAD) and the
 * static files of `publicDir`. Probes touch no store and set no cookie; static files are
 * outside endpoint authorization (docs: Authorization rules, 7).
 *
 * Only GET and HEAD requests whose last path segment has a file extension (`/styles.css`)
 * go to koa-static: it asks the file system about every request it sees (a stat on the
 * thread pool), and routed paths (`/`, `/api/...`) never name a file. Every file under
 * public/ needs an extension. koa-static is imported at the first such request.
 *
 * It returns a choice, not a layer: the front door asks it and runs what it names, so a
 * request that goes on to the session costs no async layer here (docs/performance.md).
 */
export function beforeSession(options: {
  probes: readonly Endpoint[];
  publicDir: string;
  production: boolean;
}): (ctx: Context) => Middleware | undefined {
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
  const send = new LoadedOnce(async () => {
    const { default: serve } = await import('koa-static');
    return serve(options.publicDir, {
      index: false,
      hidden: false,
      defer: false,
      maxage: options.production ? 60 * 60 * 1000 : 0,
    });
  });
  const sendStaticFile: Middleware = async (ctx, next) => (await send.get())(ctx, next);
  return function answerBeforeSession(ctx) {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return undefined;
    const path = ctx.path;
    const probe = probes.get(path);
    if (probe) return probe;
    return path.lastIndexOf('.') > path.lastIndexOf('/') ? sendStaticFile : undefined;
  };
}
