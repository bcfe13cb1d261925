import { randomToken } from '../../../application/random-token.js';
import type { BeginSignIn } from '../../../application/use-cases/begin-sign-in.js';
import type { DiscoverConnection } from '../../../application/use-cases/discover-connection.js';
import { allowAnonymous } from '../../../domain/authorization/endpoint-metadata.js';
import { isGatehouseError } from '../../../domain/errors.js';
import { validateReturnUrl } from '../../../domain/return-url.js';
import { verifyAntiForgery } from '../anti-forgery.js';
import { auditRequest } from '../audit-request.js';
import { redirectAfterForm } from '../form-redirect.js';
import type { Endpoint } from '../endpoint.js';
import { wantsJson } from '../problem-details.js';
import { readForm } from '../read-form.js';
import { singleField } from '../../single-field.js';
import { RoutePaths } from './route-paths.js';
import { discoveryFormToken, renderLoginPage, type LoginPageDeps } from './login-page.js';
import { singleQuery } from '../query.js';
import { browserSession } from '../session/browser-session.js';

export interface ExternalRouteDeps extends LoginPageDeps {
  beginSignIn: BeginSignIn;
  discoverConnection: DiscoverConnection;
  /** The origin forms must come from (Hosting:PublicOrigin); empty means the request's own origin. */
  publicOrigin: string;
  /** The origins the CSP `form-action` names besides this site (form-redirect.ts). */
  formActionOrigins: readonly string[];
}

/** A refusal the e-mail form answers on the login page itself, with what the person typed. */
const ANSWERED_ON_THE_PAGE: Readonly<Record<string, number>> = {
  'auth.email_malformed': 400,
  'auth.unknown_domain': 404,
};

/**
 * `GET /External/Challenge?provider=<Scheme>&returnUrl=<local URL>`: starts the external
 * challenge. An unknown or missing provider is a 400 with no redirect; a non-local or
 * overlong returnUrl is replaced by `/`. The flow is bound to this browser by its
 * flow-binding cookie (set here when the browser has none yet); no session is created.
 * With `stepUp=<policy>[,<policy>]` it is a step-up of the browser's sign-in at the same
 * provider, asking for what those policies need of the sign-in (docs/step-up.md).
 *
 * `POST /External/Discover` (`email`, `returnUrl`): "Sign in with your work e-mail" starts
 * the challenge of the connection holding the address's domain. An address that is not
 * one, or whose domain no connection holds, gets the login page again saying so (400,
 * 404), with the other providers; nothing is stored.
 *
 * A browser is sent on to the identity provider by a page rather than a redirect, which
 * the login page's CSP would block (form-redirect.ts); any other client gets the 302.
 */
export function externalRoutes(deps: ExternalRouteDeps): Endpoint[] {
  const challenge: Endpoint = {
    method: 'GET',
    path: RoutePaths.challenge,
    metadata: allowAnonymous(),
    handler: async (ctx) => {
      const scheme = singleQuery(ctx, 'provider');
      const returnUrl = singleQuery(ctx, 'returnUrl');
      const stepUp = singleQuery(ctx, 'stepUp');
      const binding = deps.flowBinding.read(ctx) ?? randomToken(32);
      const { redirectUrl } = await deps.beginSignIn.execute({
        scheme,
        returnUrl,
        binding,
        client: ctx.ip,
        request: auditRequest(ctx),
        // A step-up strengthens this browser's sign-in (docs/step-up.md).
        ...(stepUp === undefined ? {} : { stepUp, session: ctx.session ? browserSession(ctx).fields : {} }),
      });
      // Only a started challenge sets the cookie: a refused one leaves nothing behind.
      deps.flowBinding.write(ctx, binding);
      ctx.set('Cache-Control', 'no-store');
      ctx.redirect(redirectUrl);
    },
  };
  // Only where connections exist: without them the anonymous surface is the reviewed list of the rules.
  if (!deps.providers.hasConnections) return [challenge];
  const discover: Endpoint = {
    method: 'POST',
    path: RoutePaths.discover,
    metadata: allowAnonymous(),
    handler: async (ctx) => {
      const form = await readForm(ctx);
      const binding = deps.flowBinding.read(ctx);
      verifyAntiForgery(
        ctx,
        deps.publicOrigin || `${ctx.protocol}://${ctx.host}`,
        binding === undefined ? undefined : discoveryFormToken(binding),
        singleField(form, '_csrf'),
      );
      const email = singleField(form, 'email');
      const returnUrl = singleField(form, 'returnUrl');
      ctx.set('Cache-Control', 'no-store');
      try {
        const { redirectUrl } = await deps.discoverConnection.execute({
          email,
          returnUrl,
          binding: binding ?? randomToken(32),
          client: ctx.ip,
          request: auditRequest(ctx),
        });
        await redirectAfterForm(ctx, redirectUrl, deps.formActionOrigins);
      } catch (error) {
        const status = isGatehouseError(error) ? ANSWERED_ON_THE_PAGE[error.code] : undefined;
        if (status === undefined || wantsJson(ctx) || !isGatehouseError(error)) throw error;
        await renderLoginPage(ctx, deps, {
          returnUrl: validateReturnUrl(returnUrl),
          email: (email ?? '').slice(0, 320),
          discoveryError: error.message,
        });
        ctx.status = status;
      }
    },
  };
  return [challenge, discover];
}
