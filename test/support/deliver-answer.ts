import type { ProviderAnswer } from './identity-provider-harness.js';
import type { TestBrowser } from './oidc-app.js';

/**
 * The provider's answer POSTed from the provider's page: a cross-site POST, with which a
 * browser sends only `SameSite=None` cookies. Gatehouse sets none, so it carries no cookie.
 */
export function crossSitePost(answer: ProviderAnswer): Promise<Response> {
  return fetch(answer.url, {
    method: 'POST',
    body: new URLSearchParams(answer.form ?? {}),
    headers: { 'sec-fetch-site': 'cross-site' },
    redirect: 'manual',
  });
}

/** The fields of the page that posts an answer again from the app's own origin, and where it posts them. */
export function continuationOf(page: string, appUrl: string): { action: string; fields: Record<string, string> } {
  const form = /<form method="post" action="([^"]+)" id="continue-sign-in">([\s\S]*?)<\/form>/.exec(page);
  if (!form?.[1]) throw new Error('not the page that continues a sign-in');
  const fields: Record<string, string> = {};
  for (const input of (form[2] ?? '').matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[unescape(input[1] ?? '')] = unescape(input[2] ?? '');
  }
  return { action: new URL(unescape(form[1]), appUrl).href, fields };
}

/**
 * Delivers a provider's answer as a browser does. A redirect (GET) carries the app's
 * `SameSite=Lax` cookies. A POSTed answer first arrives cross-site without them; the app
 * answers with its continuation page, whose form the browser posts again from the app's
 * origin, this time with the cookies.
 */
export async function deliverAnswer(browser: TestBrowser, answer: ProviderAnswer, appUrl: string): Promise<Response> {
  if (answer.method === 'GET') return browser.get(answer.url);
  const first = await crossSitePost(answer);
  if (first.status !== 200) return first;
  const { action, fields } = continuationOf(await first.text(), appUrl);
  return browser.post(action, fields, { origin: appUrl, 'sec-fetch-site': 'same-origin' });
}

/** Nunjucks autoescape, undone. */
function unescape(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#92;/g, '\\')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
