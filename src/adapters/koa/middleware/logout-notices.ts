import type { Context } from 'koa';
import type { CallbackMessage, IdentityProvider } from '../../../application/ports/identity-provider.js';
import type { AcceptLogoutNotice } from '../../../application/use-cases/accept-logout-notice.js';
import { GatehouseError } from '../../../domain/errors.js';
import { auditRequest } from '../audit-request.js';
import { answerWithProblems } from '../problem-details.js';
import { readForm } from '../read-form.js';

/** A logout token is a signed JWT of a few hundred bytes to a few kilobytes. */
export const LOGOUT_NOTICE_LIMIT_BYTES = 16 * 1024;

export interface LogoutNoticeDeps {
  providers: readonly IdentityProvider[];
  acceptLogoutNotice: AcceptLogoutNotice;
  /** The configured public origin: the URL handed to the adapter is rebuilt on it, never on the Host header. */
  publicOrigin: string;
}

/** The providers' logout paths: which provider owns a path, and the handling of a request there. */
export interface LogoutNotices {
  providerAt(path: string): IdentityProvider | undefined;
  handle(ctx: Context, provider: IdentityProvider): Promise<void>;
}

/**
 * Where providers POST their logout notices (OpenID Connect Back-Channel Logout 1.0, 2.5):
 * owned by the authentication middleware like the callback paths, so not an endpoint of
 * the table, with no anti-forgery token and no session (the provider's server calls it,
 * and the notice's signature is its authentication). `POST`
 * `application/x-www-form-urlencoded` only, up to 16 KiB, refused (413) before the rest is
 * read; 200 once the notice is accepted, also when it named no session here (2.8); every
 * refusal is problem details with `Cache-Control: no-store`.
 */
export function logoutNotices(deps: LogoutNoticeDeps): LogoutNotices {
  const byPath = new Map(
    deps.providers.flatMap((provider) =>
      provider.logoutNoticePath === undefined ? [] : [[provider.logoutNoticePath.toLowerCase(), provider] as const],
    ),
  );
  return {
    providerAt: (path) => (byPath.size === 0 ? undefined : byPath.get(path.toLowerCase())),
    handle: (ctx, provider) => handleNotice(ctx, provider, deps),
  };
}

async function handleNotice(ctx: Context, provider: IdentityProvider, deps: LogoutNoticeDeps): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  answerWithProblems(ctx);
  if (ctx.method !== 'POST') {
    ctx.set('Allow', 'POST');
    throw new GatehouseError('request.method_not_allowed', 'Logout notices are POSTed.', { safe: true });
  }
  const message: CallbackMessage = {
    method: 'POST',
    url: new URL(ctx.originalUrl, deps.publicOrigin),
    form: await readForm(ctx, LOGOUT_NOTICE_LIMIT_BYTES),
  };
  await deps.acceptLogoutNotice.execute({ provider: provider.info.key, message, request: auditRequest(ctx) });
  ctx.status = 200;
  ctx.body = '';
}
