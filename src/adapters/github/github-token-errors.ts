import type { CustomFetch } from 'openid-client';

/**
 * GitHub answers a refused token request with HTTP 200 and an `error` field in the body
 * (`bad_verification_code`, `incorrect_client_credentials`, `redirect_uri_mismatch` ...;
 * https://docs.github.com/apps/oauth-apps/maintaining-oauth-apps/troubleshooting-oauth-app-access-token-request-errors),
 * where RFC 6749 5.2 has a 400. This hands such an answer to openid-client as the 400 it
 * stands for, so that it is read as an OAuth error response (its code logged and shown)
 * rather than as a token response that lacks an access token. Nothing else is touched.
 */
export function tokenErrorsAsStatus400(tokenEndpoint: string): (fetch: CustomFetch) => CustomFetch {
  const tokenUrl = new URL(tokenEndpoint).href;
  return (fetch) => async (url, options) => {
    const response = await fetch(url, options);
    if (options.method !== 'POST' || new URL(url).href !== tokenUrl || response.status !== 200) return response;
    const text = await response.text();
    const status = isErrorBody(text) ? 400 : 200;
    return new Response(text, { status, statusText: status === 400 ? 'Bad Request' : 'OK', headers: response.headers });
  };
}

function isErrorBody(text: string): boolean {
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string';
  } catch {
    return false; // not JSON: openid-client refuses it as it is
  }
}
