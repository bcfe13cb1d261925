import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import type { Logger } from '../../application/ports/logger.js';
import type { Endpoint } from './endpoint.js';
import { sessionMiddleware, type SessionMiddlewareOptions } from './session/session-middleware.js';
import './state.js';
import { frontDoor } from './middleware/front-door.js';
import { installViews } from './views.js';

export interface AppParts {
  logger: Logger;
  production: boolean;
  showStackTraces: boolean;
  trustProxy: boolean;
  viewsDir: string;
  publicDir: string;
  /** The application's name on every page (package.json: bootstrap/application-identity.ts). */
  applicationName: string;
  formActionOrigins: readonly string[];
  /** Every routed endpoint, probes included: the one table. */
  endpoints: readonly Endpoint[];
  /**
   * The session phase, after static files and before routing: the session store, then the
   * authentication middleware. Absent when authentication is disabled: then no session is
   * ever read or written.
   */
  session?: {
    storage: Omit<SessionMiddlewareOptions, 'app'>;
    /** The authentication middleware: the authenticate step and the providers' callback paths. */
    authentication: Middleware;
  };
  /** The outermost layer when telemetry is on (the server span and request duration); absent when off. */
  serverRequests?: Middleware;
  /** The authorization check of one endpoint, from its metadata (none for anonymous ones). */
  authorizeEndpoint: (endpoint: Endpoint) => Middleware | undefined;
}

/**
 * The HTTP pipeline, outermost first: the front door (request log, security headers,
 * error page, and what answers before any session: probes, static files outside endpoint
 * authorization), the session phase, then the routed endpoints, each behind its own
 * authorization check.
 */
export function createApp(parts: AppParts): Koa {
  // Behind the one proxy TrustProxy vouches for, the client address is the last
  // X-Forwarded-For entry: the one that proxy added, not one the client made up.
  const app = new Koa({ proxy: parts.trustProxy, maxIpsCount: 1 });
  app.silent = true; // errors are logged by the front door, with redaction, not by Koa's default printer
  installViews(app, parts.viewsDir, parts.production, parts.applicationName);

  const routes = new Router();
  for (const endpoint of parts.endpoints) {
    if (endpoint.beforeSession) continue;
    const authorization = parts.authorizeEndpoint(endpoint);
    const chain = [endpoint.authenticate, authorization, endpoint.handler].filter(
      (middleware): middleware is Middleware => middleware !== undefined,
    );
    routes.register(endpoint.path, [endpoint.method], chain);
  }

  if (parts.serverRequests) app.use(parts.serverRequests);
  app.use(
    frontDoor({
      logger: parts.logger,
      showStackTraces: parts.showStackTraces,
      headers: { strictTransportSecurity: parts.production, formActionOrigins: parts.formActionOrigins },
      probes: parts.endpoints.filter((endpoint) => endpoint.beforeSession),
      publicDir: parts.publicDir,
      production: parts.production,
    }),
  );
  if (parts.session) {
    app.use(sessionMiddleware({ app, ...parts.session.storage }));
    app.use(parts.session.authentication);
  }
  app.use(routes.routes());
  app.use(routes.allowedMethods());
  return app;
}
