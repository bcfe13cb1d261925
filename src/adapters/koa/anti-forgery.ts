import type { Context } from 'koa';
import { equalSecrets } from '../../application/equal-secrets.js';
import { GatehouseError } from '../../domain/errors.js';
import { singleField } from '../single-field.js';
import { readForm } from './read-form.js';

const refused = () =>
  new GatehouseError(
    'antiforgery.invalid',
    'This form has expired or did not come from this site. Reload the page and try again.',
    { safe: true },
  );

/**
 * Anti-forgery validation of an unsafe request: the submitted token must equal the
 * sign-in's (compared in constant time), and the browser's own provenance headers must
 * not say the request came from another site (Origin, Sec-Fetch-Site).
 */
export function verifyAntiForgery(
  ctx: Context,
  expectedOrigin: string,
  sessionToken: string | undefined,
  submitted: string | undefined,
): void {
  const origin = ctx.get('origin');
  if (origin !== '' && origin !== expectedOrigin) throw refused();
  const fetchSite = ctx.get('sec-fetch-site');
  if (fetchSite !== '' && fetchSite !== 'same-origin' && fetchSite !== 'none') throw refused();
  if (sessionToken === undefined || submitted === undefined || !equalSecrets(sessionToken, submitted)) throw refused();
}

/**
 * The form of a signed-in user's POST, once its anti-forgery token and provenance pass.
 * `publicOrigin` is `Hosting:PublicOrigin`; empty means the request's own origin (not
 * `ctx.origin`: Koa 3 answers that from the Origin header itself when one is sent).
 */
export async function readVerifiedForm(ctx: Context, publicOrigin: string): Promise<URLSearchParams> {
  const form = await readForm(ctx);
  verifyAntiForgery(
    ctx,
    publicOrigin || `${ctx.protocol}://${ctx.host}`,
    ctx.state.csrfToken,
    singleField(form, '_csrf'),
  );
  return form;
}
