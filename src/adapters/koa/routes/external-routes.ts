import type { BeginSignIn } from '../../../application/use-cases/begin-sign-in.js';
import { allowAnonymous } from '../../../domain/authorization/endpoint-metadata.js';
import type { Endpoint } from '../endpoint.js';
import { singleQuery } from '../query.js';
import { newAntiForgeryToken } from '../anti-forgery.js';
import { readPendingFlows, sessionOf } from '../session/session-state.js';

/**
 * `GET /External/Challenge?provider=<Scheme>&returnUrl=<local URL>`: starts the external
 * challenge. An unknown or missing provider is a 400 with no redirect; a non-local
 * returnUrl is replaced by `/`. The flow is bound to this browser's session (created here
 * when the browser has none yet).
 */
export function externalRoutes(deps: { beginSignIn: BeginSignIn }): Endpoint[] {
  return [
    {
      method: 'GET',
      path: '/External/Challenge',
      metadata: allowAnonymous(),
      handler: async (ctx) => {
        const scheme = singleQuery(ctx, 'provider');
        const returnUrl = singleQuery(ctx, 'returnUrl');
        const session = sessionOf(ctx);
        // A random value kept in the session, not the session id: the id changes at every
        // sign-in, and a second tab's pending flow must survive the first tab's sign-in.
        const flowBinding = typeof session.flowBinding === 'string' ? session.flowBinding : newAntiForgeryToken();
        const result = await deps.beginSignIn.execute({
          scheme,
          returnUrl,
          sessionBinding: flowBinding,
          pendingFlows: readPendingFlows(session.pendingFlows),
        });
        // Only a started challenge writes the session: a refused one creates nothing.
        session.flowBinding = flowBinding;
        session.pendingFlows = result.pendingFlows;
        ctx.set('Cache-Control', 'no-store');
        ctx.redirect(result.redirectUrl);
      },
    },
  ];
}
