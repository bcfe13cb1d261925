import type { CustomFetch } from 'openid-client';
import type { ObserveRequest, ProviderEndpoint } from '../outbound-requests.js';

/**
 * The fetch every openid-client call goes through (discovery, token, userinfo, JWKS,
 * refresh). openid-client already aborts after `Configuration.timeout`; this adds our own
 * deadline on top, so that a provider that accepts the connection and never answers (or
 * stops half-way through a body) fails with `idp.timeout` after `timeoutMs`, whatever the
 * library's defaults become.
 */
export function timeLimitedFetch(
  timeoutMs: number,
  observed?: { observe: ObserveRequest; endpointOf: (url: URL) => ProviderEndpoint },
  base: typeof fetch = fetch,
): CustomFetch {
  return (url, options) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    // Redirects stay manual (openid-client asks for it): a token endpoint must not bounce us elsewhere.
    const send = (headers?: Record<string, string>) =>
      base(url, {
        ...options,
        ...(headers ? { headers: { ...options.headers, ...headers } } : {}),
        body: options.body as RequestInit['body'],
        signal,
      });
    if (!observed) return send();
    const target = new URL(url);
    return observed.observe(observed.endpointOf(target), target, send);
  };
}
