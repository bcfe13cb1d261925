import type { Context } from 'koa';
import type { CallbackMessage, IdentityProvider } from '../../../application/ports/identity-provider.js';
import type { CompleteSignIn } from '../../../application/use-cases/complete-sign-in.js';
import { GatehouseError } from '../../../domain/errors.js';
import type { FlowBindingCookie } from '../flow-binding-cookie.js';
import { auditRequest } from '../audit-request.js';
import { deviceName } from '../device-name.js';
import { readForm } from '../read-form.js';
import { browserSession } from '../session/browser-session.js';

export interface RemoteCallbackDeps {
  completeSignIn: CompleteSignIn;
  flowBinding: FlowBindingCookie;
  /** The configured public origin: callback URLs are rebuilt on it, never on the Host header. */
  publicOrigin: string;
}

/** Marks a message we posted again from our own page (see below); never passed to the adapter. */
const RESENT_FIELD = 'gatehouse_resent';

/**
 * The remote authentication handlers: requests to a provider's callback path are owned
 * here, by the authentication middleware, not by the endpoint table (docs: Callback
 * paths). Each path accepts the methods its protocol uses and a POSTed message up to the
 * provider's own size limit; a GET that carries no message there serves the provider's
 * document (SAML service-provider metadata); every other method is a 405. The middleware
 * only parses, calls the use case and redirects.
 *
 * A message POSTed from the provider's site (a SAML response, OAuth `form_post`) arrives
 * without our `SameSite=Lax` cookies, so it cannot be matched to the browser that started
 * the sign-in. It is answered with a page that posts it again from this site, so the
 * browser sends our cookies with it: nothing is read, stored or used up on the first
 * arrival, and a browser whose cookies still do not travel is told so.
 */
export function remoteCallbacks(deps: RemoteCallbackDeps): RemoteCallbacks {
  return { handle: (ctx, provider) => handleCallback(ctx, provider, deps) };
}

/** The handling of a request at a provider's callback path (IdentityProviders says whose path it is). */
export interface RemoteCallbacks {
  handle(ctx: Context, provider: IdentityProvider): Promise<void>;
}

async function handleCallback(ctx: Context, provider: IdentityProvider, deps: RemoteCallbackDeps): Promise<void> {
  // The callback carries codes or assertions: keep it out of caches and Referer headers.
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');

  const method = ctx.method;
  const document = method === 'GET' && !provider.callback.messageMethods.includes('GET') && provider.callbackDocument;
  if (document) {
    const { contentType, body } = document.call(provider);
    ctx.type = contentType;
    ctx.body = body;
    return;
  }
  if (method !== 'GET' && method !== 'POST') return refuseMethod(ctx, provider);
  if (!provider.callback.messageMethods.includes(method)) return refuseMethod(ctx, provider);

  const message: CallbackMessage = {
    method,
    url: new URL(ctx.originalUrl, deps.publicOrigin),
    form: method === 'POST' ? await readForm(ctx, provider.callback.maxBodyBytes) : new URLSearchParams(),
  };
  const binding = deps.flowBinding.read(ctx);
  if (method === 'POST' && binding === undefined && !message.form.has(RESENT_FIELD)) {
    return postAgainFromThisSite(ctx, provider.info.callbackPath, message.form);
  }
  message.form.delete(RESENT_FIELD);
  const { returnUrl } = await deps.completeSignIn.execute({
    provider: provider.info.key,
    message,
    binding,
    session: browserSession(ctx),
    request: auditRequest(ctx),
    device: deviceName(ctx.get('user-agent')),
  });
  ctx.redirect(returnUrl);
}

function refuseMethod(ctx: Context, provider: IdentityProvider): never {
  const allowed = new Set<string>(provider.callback.messageMethods);
  if (provider.callbackDocument) allowed.add('GET');
  ctx.set('Allow', [...allowed].join(', '));
  throw new GatehouseError('request.method_not_allowed', 'This address does not accept that method.', { safe: true });
}

async function postAgainFromThisSite(ctx: Context, action: string, form: URLSearchParams): Promise<void> {
  const fields = [...form].map(([name, value]) => ({ name, value }));
  fields.push({ name: RESENT_FIELD, value: '1' });
  await ctx.render('continue-sign-in', { action, fields });
}
