import type { Context } from 'koa';
import type { CallbackMessage, IdentityProvider } from '../../../application/ports/identity-provider.js';
import type { ReceiveProviderLogout } from '../../../application/use-cases/receive-provider-logout.js';
import { GatehouseError } from '../../../domain/errors.js';
import { auditRequest } from '../audit-request.js';
import { readForm } from '../read-form.js';
import type { SignedOutNotice } from '../signed-out-notice.js';

export interface ProviderLogoutDeps {
  providers: readonly IdentityProvider[];
  receiveLogout: ReceiveProviderLogout;
  signedOutNotice: SignedOutNotice;
  /** The configured public origin: logout URLs are rebuilt on it, never on the Host header. */
  publicOrigin: string;
}

/** The providers' logout paths: which provider owns a path, and the handling of a request there. */
export interface ProviderLogouts {
  providerAt(path: string): IdentityProvider | undefined;
  handle(ctx: Context, provider: IdentityProvider): Promise<void>;
}

/**
 * The providers' logout paths (SAML Single Logout), owned by the authentication
 * middleware like the callback paths: not in the endpoint table, no anti-forgery token
 * (the message's signature authenticates it, and a provider's POST arrives cross-site,
 * without our cookies; none is needed, the message names the sessions itself). The
 * middleware parses, calls the use case and redirects: to the provider's answer, or to
 * the login page, which then says the browser was signed out.
 */
export function providerLogouts(deps: ProviderLogoutDeps): ProviderLogouts {
  const byPath = new Map(
    deps.providers.flatMap((provider) => (provider.logout ? [[provider.logout.path.toLowerCase(), provider]] : [])),
  );
  return {
    providerAt: (path) => (byPath.size === 0 ? undefined : byPath.get(path.toLowerCase())),
    handle: (ctx, provider) => handleLogout(ctx, provider, deps),
  };
}

async function handleLogout(ctx: Context, provider: IdentityProvider, deps: ProviderLogoutDeps): Promise<void> {
  // Logout messages are signed protocol messages: keep them out of caches and Referer headers.
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  const endpoint = provider.logout;
  const method = ctx.method;
  if (!endpoint || (method !== 'GET' && method !== 'POST') || !endpoint.messageMethods.includes(method)) {
    ctx.set('Allow', (endpoint?.messageMethods ?? []).join(', '));
    throw new GatehouseError('request.method_not_allowed', 'This address does not accept that method.', {
      safe: true,
    });
  }
  const message: CallbackMessage = {
    method,
    url: new URL(ctx.originalUrl, deps.publicOrigin),
    form: method === 'POST' ? await readForm(ctx, endpoint.maxBodyBytes) : new URLSearchParams(),
  };
  const { redirectUrl } = await deps.receiveLogout.execute({
    provider: provider.info.key,
    message,
    request: auditRequest(ctx),
  });
  if (redirectUrl !== undefined) return ctx.redirect(redirectUrl);
  deps.signedOutNotice.set(ctx);
  ctx.redirect('/Account/Login');
}
