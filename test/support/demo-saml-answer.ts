import { CookieJar } from './drive-oidc-login.js';

/**
 * Plays a browser at the demo SAML identity provider's sign-in page for an AuthnRequest
 * (`sso`: where Gatehouse's challenge redirected): reads the page, posts its form as
 * `login` (any password) and returns the page, and the fields of the form that would post
 * the response to the ACS. `jar` keeps the identity provider's session cookie (single logout).
 */
export async function answerAtDemoSamlIdentityProvider(
  sso: string,
  login: 'admin' | 'user',
  jar = new CookieJar(),
): Promise<{ loginPage: Response; loginHtml: string; form: Record<string, string> }> {
  const loginPage = await jar.fetch(sso);
  const loginHtml = await loginPage.text();
  const pending = /name="pending" value="([^"]+)"/.exec(loginHtml)?.[1];
  if (!pending) throw new Error(`no sign-in form at the demo SAML identity provider (${loginPage.status})`);
  const answer = await jar.fetch(new URL('/sso/login', sso), {
    method: 'POST',
    body: new URLSearchParams({ pending, login, password: 'any' }),
  });
  const form = Object.fromEntries(
    [...(await answer.text()).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
      m[1] ?? '',
      m[2] ?? '',
    ]),
  );
  return { loginPage, loginHtml, form };
}
