import type { Context } from 'koa';

/**
 * Ends a form's submission by sending the browser to `location`. A browser follows the
 * redirect that answers a form only to an origin the page's CSP `form-action` names (CSP
 * Level 3, 6.4.2: the directive covers the redirects too; Chromium and Firefox block the
 * others): this site and the deployment's own providers (`formActionOrigins`, for their
 * logout). A connection's identity provider is none of them, and cannot be: a deployment
 * has thousands, and a SAML one's address is known only once its metadata is read. So a
 * browser sent there gets a page that moves on by itself (a meta refresh, which is a
 * navigation of its own, and a link), and any other client gets the redirect.
 */
export async function redirectAfterForm(
  ctx: Context,
  location: string,
  formActionOrigins: readonly string[],
): Promise<void> {
  // The site the form was on, as the browser saw it (not `ctx.origin`: Koa 3 reads that from the Origin header).
  const site = `${ctx.protocol}://${ctx.host}`;
  const origin = new URL(location, site).origin;
  if (origin === site || formActionOrigins.includes(origin) || !isBrowserNavigation(ctx)) {
    ctx.redirect(location);
    return;
  }
  await ctx.render('continue-to-provider', { location });
}

/**
 * A browser loading a page (a link followed, a form submitted) rather than a script's or a
 * program's call: `Sec-Fetch-Mode: navigate` (Fetch Metadata), or, from a browser that
 * sends no Fetch Metadata, an `Accept` that names HTML.
 */
function isBrowserNavigation(ctx: Context): boolean {
  const mode = ctx.get('sec-fetch-mode');
  if (mode !== '') return mode === 'navigate';
  return /(^|,)\s*text\/html\s*(;|,|$)/i.test(ctx.get('accept'));
}

/** The origins the CSP `form-action` names besides this site: the deployment's own providers' logout. */
export function formActionOrigins(
  providers: ReadonlyArray<{ readonly formActionOrigin?: string | undefined }>,
): string[] {
  return providers.flatMap((provider) => (provider.formActionOrigin ? [provider.formActionOrigin] : []));
}
