import type { CookieJar } from './drive-oidc-login.js';

/**
 * Plays the user signing out at oidc-provider itself (its end-session page, no
 * `id_token_hint`): opens the page with the provider's cookies and confirms "Yes, sign me
 * out". The provider then POSTs a logout token to every client of the session that
 * registered a back-channel logout URI, and answers once those calls are done.
 */
export async function signOutAtProvider(jar: CookieJar, issuer: string): Promise<Response> {
  const page = await jar.fetch(`${issuer}/session/end`);
  const html = await page.text();
  const action = /<form[^>]*id="op\.logoutForm"[^>]*action="([^"]+)"/.exec(html)?.[1];
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
  if (page.status !== 200 || !action || !xsrf) throw new Error(`no logout form at the provider (${page.status})`);
  const confirmed = await jar.fetch(new URL(action.replace(/&amp;/g, '&'), issuer), {
    method: 'POST',
    body: new URLSearchParams({ xsrf, logout: 'yes' }),
  });
  if (confirmed.status >= 400) throw new Error(`the provider refused the logout (${confirmed.status})`);
  await confirmed.body?.cancel();
  return confirmed;
}
