import type { Middleware } from 'koa';
import type { AuthenticateSession } from '../../../application/use-cases/authenticate-session.js';
import { auditRequest } from '../audit-request.js';
import { browserSession } from '../session/browser-session.js';
import type { IdentityProviders, ProviderPath } from '../../../application/identity-providers.js';
import { GatehouseError } from '../../../domain/errors.js';
import type { Context } from 'koa';
import type { ProviderLogouts } from './provider-logouts.js';
import type { RemoteCallbacks } from './remote-callbacks.js';

/**
 * The authentication middleware, once the session is loaded. A request at a provider's
 * callback path is that provider's (remote-callbacks.ts): it completes a sign-in and goes
 * no further; so is one at its logout path (provider-logouts.ts), which ends sessions.
 * Any other request with a session gets its sign-in on `ctx.state` (the principal, the
 * anti-forgery token, the name pages show); a request without a session cookie touches no
 * store. Whatever answers a signed-in user is about that user, so no
 * cache may keep it: pages, JSON and problem details alike. One layer, not two: every
 * request passes here (docs/performance.md).
 */
export function authentication(deps: {
  authenticate: AuthenticateSession;
  /** Whose callback or logout path a request is at, if anyone's. */
  providers: IdentityProviders;
  remoteCallbacks: RemoteCallbacks;
  /** The providers' logout paths (back- and front-channel logout, SAML Single Logout). */
  providerLogouts: ProviderLogouts;
}): Middleware {
  const { providers } = deps;
  return async function authenticateRequest(ctx, next) {
    const owned =
      providers.builtInAt(ctx.path) ??
      (providers.isConnectionPath(ctx.path) ? await providers.connectionAt(ctx.path) : undefined);
    if (owned) return handleOwned(ctx, owned, deps);
    const signIn =
      ctx.session?.isNew === false
        ? await deps.authenticate.execute(browserSession(ctx), auditRequest(ctx))
        : undefined;
    if (!signIn) return next();
    ctx.state.principal = signIn.principal;
    ctx.state.user = { name: signIn.userName };
    ctx.state.csrfToken = signIn.csrf;
    await next();
    // Straight onto the response by its lower-case name, as the front door sets the
    // security headers: through ctx.set() this every-request header costs 1.7 times as
    // much (docs/performance.md). Nothing downstream writes the response itself, but a
    // header once sent cannot be set.
    if (!ctx.headerSent) ctx.res.setHeader('cache-control', 'no-store');
  };
}

/** A request at a provider's own path: its callback, its logout path, or a connection that is no longer here. */
function handleOwned(
  ctx: Context,
  owned: ProviderPath,
  deps: { remoteCallbacks: RemoteCallbacks; providerLogouts: ProviderLogouts },
): Promise<void> {
  if (owned.provider === undefined) {
    // A removed connection's pending sign-in (or a guess at a name): refused plainly, nothing read.
    throw new GatehouseError('idp.connection_unknown', "This organization's sign-in is not offered here.", {
      safe: true,
    });
  }
  // A registered provider's own path: counted under its configured path or template, never
  // the path as sent (it matches in any letter case).
  ctx.state.route = owned.route;
  return owned.at === 'callback'
    ? deps.remoteCallbacks.handle(ctx, owned.provider)
    : deps.providerLogouts.handle(ctx, owned);
}
