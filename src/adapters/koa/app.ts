import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import type { Logger } from '../../application/ports/logger.js';
import type { Endpoint } from './endpoint.js';
import { sessionMiddleware, type SessionMiddlewareOptions } from './session/session-middleware.js';
import './state.js';
import { errorHandler } from './middleware/error-handler.js';
import { requestLog } from './middleware/request-log.js';
import { securityHeaders } from './middleware/security-headers.js';
import { onFirstUse } from './on-first-use.js';
import { installViews } from './views.js';

export interface AppParts {
  logger: Logger;
  production: boolean;
  showStackTraces: boolean;
  trustProxy: boolean;
  viewsDir: string;
  publicDir: string;
  formActionOrigins: readonly string[];
  /** Every routed endpoint, probes included: the one table. */
  endpoints: readonly Endpoint[];
  /**
   * The session phase, after static files and before routing: the session store, then the
   * authenticate step and the providers' callback paths. Absent when authentication is
   * disabled: then no session is ever read or written.
   */
  session?: {
    storage: Omit<SessionMiddlewareOptions, 'app'>;
    authenticate: Middleware;
    remoteCallbacks: Middleware;
  };
  /** The authorization check of one endpoint, from its metadata (none for anonymous ones). */
  authorizeEndpoint: (endpoint: Endpoint) => Middleware | undefined;
}

/**
 * The HTTP pipeline, outermost first: request log, security headers, error page,
 * probes (before any session), static files (outside endpoint authorization), session,
 * then the routed endpoints, each behind its own authorization check.
 */
export function createApp(parts: AppParts): Koa {
  // Behind the one proxy TrustProxy vouches for, the client address is the last
  // X-Forwarded-For entry: the one that proxy added, not one the client made up.
  const app = new Koa({ proxy: parts.trustProxy, maxIpsCount: 1 });
  app.silent = true; // errors are logged by errorHandler, with redaction, not by Koa's default printer
  installViews(app, parts.viewsDir, parts.production);

  const probes = new Router();
  const routes = new Router();
  for (const endpoint of parts.endpoints) {
    const router = endpoint.beforeSession ? probes : routes;
    const authorization = parts.authorizeEndpoint(endpoint);
    const chain = authorization ? [authorization, endpoint.handler] : [endpoint.handler];
    router.register(endpoint.path, [endpoint.method], chain);
  }

  app.use(requestLog(parts.logger));
  app.use(securityHeaders({ strictTransportSecurity: parts.production, formActionOrigins: parts.formActionOrigins }));
  app.use(errorHandler(parts.logger, parts.showStackTraces));
  app.use(probes.routes());
  app.use(staticFiles(parts.publicDir, parts.production));
  if (parts.session) {
    app.use(sessionMiddleware({ app, ...parts.session.storage }));
    app.use(parts.session.authenticate);
    app.use(parts.session.remoteCallbacks);
  }
  app.use(routes.routes());
  app.use(routes.allowedMethods());
  return app;
}

/**
 * Files from `publicDir` for GET and HEAD requests whose last path segment has a file
 * extension (`/styles.css`), and only those: koa-static asks the file system about every
 * request it sees (a stat on the thread pool: README, Performance), and routed paths (`/`,
 * `/api/...`) never name a file. Every file under public/ needs an
 * extension. koa-static is imported at the first such request, not at start-up.
 */
function staticFiles(publicDir: string, production: boolean): Middleware {
  const send = onFirstUse(async () => {
    const { default: serve } = await import('koa-static');
    return serve(publicDir, { index: false, hidden: false, defer: false, maxage: production ? 60 * 60 * 1000 : 0 });
  });
  return async function serveStatic(ctx, next) {
    const isFile =
      (ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.path.lastIndexOf('.') > ctx.path.lastIndexOf('/');
    if (!isFile) return next();
    return (await send())(ctx, next);
  };
}
