import { randomToken } from '../../../application/random-token.js';
import type { BeginSignIn } from '../../../application/use-cases/begin-sign-in.js';
import { allowAnonymous } from '../../../domain/authorization/endpoint-metadata.js';
import { auditRequest } from '../audit-request.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from './route-paths.js';
import type { FlowBindingCookie } from '../flow-binding-cookie.js';
import { singleQuery } from '../query.js';

/**
 * `GET /External/Challenge?provider=<Scheme>&returnUrl=<local URL>`: starts the external
 * challenge. An unknown or missing provider is a 400 with no redirect; a non-local or
 * overlong returnUrl is replaced by `/`. The flow is bound to this browser by its
 * flow-binding cookie (set here when the browser has none yet); no session is created.
 */
export function externalRoutes(deps: { beginSignIn: BeginSignIn; flowBinding: FlowBindingCookie }): Endpoint[] {
  return [
    {
      method: 'GET',
      path: RoutePaths.challenge,
      metadata: allowAnonymous(),
      handler: async (ctx) => {
        const scheme = singleQuery(ctx, 'provider');
        const returnUrl = singleQuery(ctx, 'returnUrl');
        const binding = deps.flowBinding.read(ctx) ?? randomToken(32);
        const { redirectUrl } = await deps.beginSignIn.execute({
          scheme,
          returnUrl,
          binding,
          client: ctx.ip,
          request: auditRequest(ctx),
        });
        // Only a started challenge sets the cookie: a refused one leaves nothing behind.
        deps.flowBinding.write(ctx, binding);
        ctx.set('Cache-Control', 'no-store');
        ctx.redirect(redirectUrl);
      },
    },
  ];
}
