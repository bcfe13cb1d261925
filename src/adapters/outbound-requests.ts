/** Which of an identity provider's endpoints a request goes to: a bounded set, never the URL itself. */
export type ProviderEndpoint = 'discovery' | 'token' | 'userinfo' | 'jwks' | 'metadata' | 'other';

/**
 * Watches one outbound request to an identity provider (telemetry): `send` makes the
 * request with the extra headers given (the trace context), and its response is returned
 * as it came. Absent when telemetry is off: then the adapters call fetch directly.
 */
export type ObserveRequest = (
  endpoint: ProviderEndpoint,
  url: URL,
  send: (headers: Record<string, string>) => Promise<Response>,
) => Promise<Response>;

/** The watcher of one provider's requests, by its key. */
export type OutboundRequests = (provider: string) => ObserveRequest;

/** The endpoints an OAuth 2.0 / OpenID Connect configuration names, as far as it is known yet. */
export interface KnownEndpoints {
  token_endpoint?: string | undefined;
  userinfo_endpoint?: string | undefined;
  jwks_uri?: string | undefined;
}

/**
 * The endpoint a request of openid-client goes to: the well-known documents are discovery;
 * the configuration's token, userinfo and JWKS URLs are those; anything else (a vendor's
 * profile API) is `fallback`.
 */
export function providerEndpoint(
  url: URL,
  known: KnownEndpoints | undefined,
  fallback: ProviderEndpoint,
): ProviderEndpoint {
  if (url.pathname.includes('/.well-known/')) return 'discovery';
  const bare = `${url.origin}${url.pathname}`;
  if (known?.token_endpoint !== undefined && sameEndpoint(bare, known.token_endpoint)) return 'token';
  if (known?.userinfo_endpoint !== undefined && sameEndpoint(bare, known.userinfo_endpoint)) return 'userinfo';
  if (known?.jwks_uri !== undefined && sameEndpoint(bare, known.jwks_uri)) return 'jwks';
  return fallback;
}

function sameEndpoint(bare: string, configured: string): boolean {
  try {
    const parsed = new URL(configured);
    return `${parsed.origin}${parsed.pathname}` === bare;
  } catch {
    return false;
  }
}
