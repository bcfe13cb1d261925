import type { Context } from 'koa';
import type {
  CallbackMessage,
  IdentityProvider,
  LogoutEndpoint,
} from '../../../application/ports/identity-provider.js';
import type { ReceiveProviderLogout } from '../../../application/use-cases/receive-provider-logout.js';
import { GatehouseError } from '../../../domain/errors.js';
import { auditRequest } from '../audit-request.js';
import { answerFramedLogout } from '../framed-logout-answer.js';
import { answerWithProblems } from '../problem-details.js';
import { readForm } from '../read-form.js';
import type { SignedOutNotice } from '../signed-out-notice.js';

export interface ProviderLogoutDeps {
  receiveLogout: ReceiveProviderLogout;
  signedOutNotice: SignedOutNotice;
  /** The configured public origin: logout URLs are rebuilt on it, never on the Host header. */
  publicOrigin: string;
}

/** A provider's logout path: the provider, and which of its endpoints (one per channel). */
export interface ProviderLogoutPath {
  provider: IdentityProvider;
  endpoint: LogoutEndpoint;
}

/** The handling of a request at a provider's logout path (IdentityProviders says whose path it is, and which endpoint). */
export interface ProviderLogouts {
  handle(ctx: Context, at: ProviderLogoutPath): Promise<void>;
}

/**
 * The providers' logout paths, owned by the authentication middleware like the callback
 * paths: not in the endpoint table, no anti-forgery token and no session (the message's
 * signature authenticates it; a provider's server calls without our cookies, and a
 * provider's POST through the browser arrives cross-site without them; none is needed,
 * the message names the sessions itself). Never cached, never in a Referer header. The
 * middleware parses, calls the use case and answers as the channel wants: the back
 * channel (a server's call) 200 with an empty body once the message is accepted, also
 * when it named no session here, and problem details for every refusal; the front channel
 * (the browser) a redirect to the provider's answer, or to the login page, which then says
 * the browser was signed out; a frame (the browser, inside the provider's page) the same
 * small page whether a session ended or not, which only the provider may frame.
 */
export function providerLogouts(deps: ProviderLogoutDeps): ProviderLogouts {
  return { handle: (ctx, at) => handleLogout(ctx, at, deps) };
}

async function handleLogout(ctx: Context, { provider, endpoint }: ProviderLogoutPath, deps: ProviderLogoutDeps) {
  // Logout messages are protocol messages: keep them out of caches and Referer headers.
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  // A server reads no pages: its refusals are problem details whatever it accepts.
  if (endpoint.channel === 'back') answerWithProblems(ctx);
  const method = acceptedMethod(ctx, endpoint);
  const message: CallbackMessage = {
    method,
    url: new URL(ctx.originalUrl, deps.publicOrigin),
    form: method === 'POST' ? await readForm(ctx, endpoint.maxBodyBytes) : new URLSearchParams(),
  };
  const { redirectUrl } = await deps.receiveLogout.execute({
    provider: provider.info.key,
    endpoint,
    message,
    request: auditRequest(ctx),
  });
  if (endpoint.channel === 'back') {
    ctx.status = 200;
    ctx.body = '';
    return;
  }
  // Only once accepted: a refusal keeps the default frame-ancestors 'none' (nothing to show).
  if (endpoint.channel === 'frame') return answerFramedLogout(ctx, endpoint.framedBy);
  if (redirectUrl !== undefined) return ctx.redirect(redirectUrl);
  deps.signedOutNotice.set(ctx);
  ctx.redirect('/Account/Login');
}

/** The request's method when the endpoint takes it; otherwise a 405 naming those it takes. */
function acceptedMethod(ctx: Context, endpoint: LogoutEndpoint): 'GET' | 'POST' {
  const method = ctx.method;
  if ((method !== 'GET' && method !== 'POST') || !endpoint.messageMethods.includes(method)) {
    ctx.set('Allow', endpoint.messageMethods.join(', '));
    throw new GatehouseError('request.method_not_allowed', 'This address does not accept that method.', {
      safe: true,
    });
  }
  return method;
}
