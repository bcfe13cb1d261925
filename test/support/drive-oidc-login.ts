import type { ProviderAnswer } from './identity-provider-harness.js';

/**
 * Plays the browser through oidc-provider's dev login over plain HTTP: follows redirects
 * by hand, keeps cookies, posts the login form (any password) and the consent form, and
 * stops at the redirect back to the client, without following it.
 */

/**
 * Cookies per origin (scheme, host and port). Simpler than a browser, which ignores the
 * port: enough for loopback tests, and it keeps the provider's and the app's cookies apart.
 */
export class CookieJar {
  readonly #byOrigin = new Map<string, Map<string, string>>();

  /** Stores the Set-Cookie headers of a response to `url`; expired or emptied cookies are removed. */
  store(url: string | URL, response: Response): void {
    const origin = new URL(url).origin;
    const cookies = this.#byOrigin.get(origin) ?? new Map<string, string>();
    for (const header of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = header.split(';');
      const separator = pair.indexOf('=');
      if (separator <= 0) continue;
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      if (value === '' || attributes.some(isExpiry)) cookies.delete(name);
      else cookies.set(name, value);
    }
    this.#byOrigin.set(origin, cookies);
  }

  /** The Cookie header to send to `url`, or undefined when there is none. */
  header(url: string | URL): string | undefined {
    const cookies = this.#byOrigin.get(new URL(url).origin);
    if (!cookies || cookies.size === 0) return undefined;
    return [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** Sends a request with this jar's cookies and stores the ones it gets back (redirects are not followed). */
  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.header(url);
    if (cookie !== undefined) headers.set('cookie', cookie);
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.store(url, response);
    return response;
  }
}

export interface DriveOidcLoginOptions {
  /**
   * Where the client expects the response; default: anywhere off the provider's origin (a
   * pushed authorization request's URL names no redirect_uri: RFC 9126).
   */
  redirectUri?: string;
  /** Cancel at the consent page instead of accepting (the provider answers error=access_denied). */
  deny?: boolean;
  /** Also confirm with this one-time code at the login page (the demo provider's second factor: amr mfa). */
  oneTimeCode?: string;
}

/**
 * Drives the authorization request to its answer: returns the callback URL (with `code`
 * and `state`, or `error`) that the provider redirects the browser to.
 */
export async function driveOidcLogin(
  authorizationUrl: string,
  login: 'admin' | 'user',
  cookieJar: CookieJar = new CookieJar(),
  options: DriveOidcLoginOptions = {},
): Promise<URL> {
  const answer = await driveOidcAnswer(authorizationUrl, login, cookieJar, options);
  if (answer.method !== 'GET')
    throw new Error('driveOidcLogin: the provider answered with a form_post; use driveOidcAnswer');
  return new URL(answer.url);
}

/**
 * Drives the authorization request to its answer, as the provider sends it back: a
 * redirect to the client (`response_mode=query`), or the provider's self-submitting page
 * POSTing the response to the client (`response_mode=form_post`), read from its form.
 */
export async function driveOidcAnswer(
  authorizationUrl: string,
  login: 'admin' | 'user',
  cookieJar: CookieJar = new CookieJar(),
  options: DriveOidcLoginOptions = {},
): Promise<ProviderAnswer> {
  const providerOrigin = new URL(authorizationUrl).origin;
  const isAnswer = (target: string) =>
    options.redirectUri === undefined
      ? new URL(target).origin !== providerOrigin
      : target.startsWith(options.redirectUri);

  let url = authorizationUrl;
  let response = await cookieJar.fetch(url);
  for (let step = 0; step < 20; step += 1) {
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const location = response.headers.get('location');
      if (!location) throw new Error(`driveOidcLogin: ${response.status} without Location at ${url}`);
      url = new URL(location, url).href;
      if (isAnswer(url)) return { method: 'GET', url };
      response = await cookieJar.fetch(url);
      continue;
    }
    const page = await response.text();
    const formPost = formPostTo(page, url, isAnswer);
    if (formPost) return formPost;
    const form = /<form[^>]*action="([^"]+)"[^>]*>\s*<input type="hidden" name="prompt" value="(login|consent)"/.exec(
      page,
    );
    if (response.status !== 200 || !form) {
      throw new Error(
        `driveOidcLogin: unexpected ${response.status} page at ${url}: ${page
          .replace(/<[^>]*>/g, ' ')
          .replace(/\s+/g, ' ')
          .slice(0, 300)}`,
      );
    }
    const [, action = '', prompt] = form;
    if (prompt === 'consent' && options.deny) {
      const abort = /<a href="([^"]+\/abort)"/.exec(page);
      if (!abort?.[1]) throw new Error('driveOidcLogin: no cancel link on the consent page');
      url = new URL(unescapeHtml(abort[1]), url).href;
      response = await cookieJar.fetch(url);
      continue;
    }
    const body =
      prompt === 'login'
        ? new URLSearchParams({
            prompt: 'login',
            login,
            password: 'any password',
            ...(options.oneTimeCode === undefined ? {} : { otp: options.oneTimeCode }),
          })
        : new URLSearchParams({ prompt: 'consent' });
    url = new URL(unescapeHtml(action), url).href;
    response = await cookieJar.fetch(url, { method: 'POST', body });
  }
  throw new Error('driveOidcLogin: too many steps');
}

/** OAuth 2.0 Form Post Response Mode: the page's form, if it posts to the client. */
function formPostTo(page: string, pageUrl: string, isAnswer: (url: string) => boolean): ProviderAnswer | undefined {
  const form = /<form[^>]*method="post"[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/i.exec(page);
  const action = form?.[1] === undefined ? undefined : new URL(unescapeHtml(form[1]), pageUrl).href;
  if (action === undefined || !isAnswer(action)) return undefined;
  const fields: Record<string, string> = {};
  for (const input of (form?.[2] ?? '').matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/gi)) {
    fields[unescapeHtml(input[1] ?? '')] = unescapeHtml(input[2] ?? '');
  }
  return { method: 'POST', url: action, form: fields };
}

function isExpiry(attribute: string): boolean {
  const [name = '', value = ''] = attribute.split('=').map((part) => part.trim());
  if (/^max-age$/i.test(name)) return Number(value) <= 0;
  if (/^expires$/i.test(name)) return Date.parse(value) <= Date.now();
  return false;
}

function unescapeHtml(value: string): string {
  return value
    .replace(/&#x2F;/gi, '/')
    .replace(/&#39;|&#x27;/gi, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
