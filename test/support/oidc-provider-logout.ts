import type { CookieJar } from './drive-oidc-login.js';

/**
 * Plays the user signing out at oidc-provider itself (its end-session page, no
 * `id_token_hint`): opens the page with the provider's cookies and confirms "Yes, sign me
 * out". The provider then POSTs a logout token to every client of the session that
 * registered a back-channel logout URI, and answers once those calls are done.
 */
export async function signOutAtProvider(jar: CookieJar, issuer: string): Promise<Response> {
  const confirmed = await confirmSignOut(jar, issuer);
  await confirmed.body?.cancel();
  return confirmed;
}

/**
 * The same, for clients that registered a front-channel logout URI: the provider's answer
 * is then a page with one iframe per such client (the demo provider's front-channel
 * logout); returns their addresses, which a test loads as the browser would.
 */
export async function frontchannelFramesAtSignOut(jar: CookieJar, issuer: string): Promise<URL[]> {
  const confirmed = await confirmSignOut(jar, issuer);
  const html = await confirmed.text();
  if (confirmed.status !== 200) throw new Error(`the provider answered ${confirmed.status}, not a page of frames`);
  return [...html.matchAll(/<iframe[^>]*src="([^"]+)"/g)].map((match) => new URL(unescape(match[1] ?? '')));
}

async function confirmSignOut(jar: CookieJar, issuer: string): Promise<Response> {
  const page = await jar.fetch(`${issuer}/session/end`);
  const html = await page.text();
  const action = /<form[^>]*id="op\.logoutForm"[^>]*action="([^"]+)"/.exec(html)?.[1];
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
  if (page.status !== 200 || !action || !xsrf) throw new Error(`no logout form at the provider (${page.status})`);
  const confirmed = await jar.fetch(new URL(unescape(action), issuer), {
    method: 'POST',
    body: new URLSearchParams({ xsrf, logout: 'yes' }),
  });
  if (confirmed.status >= 400) throw new Error(`the provider refused the logout (${confirmed.status})`);
  return confirmed;
}

function unescape(value: string): string {
  return value.replace(/&amp;/g, '&');
}
