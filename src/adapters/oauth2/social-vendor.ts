import type { CustomFetch, TokenEndpointResponse } from 'openid-client';

/** What a vendor's user reader gets: the token answer and authenticated GETs on the vendor's API. */
export interface VendorApi {
  /** The endpoint in force under a setting's name: the configured override, or the vendor's own. */
  endpoint(name: string): string;
  /** The token endpoint's answer of this sign-in. */
  tokens: TokenEndpointResponse;
  /** The scopes that were requested, in the vendor's spelling. */
  requestedScopes: readonly string[];
  /** GETs `url` with the access token and narrows the JSON with `narrow`; any failure is `idp.userinfo_failed`. */
  getJson<T>(url: string, headers: Readonly<Record<string, string>>, narrow: (json: unknown) => T): Promise<T>;
}

/**
 * One social vendor's OAuth 2.0 sign-in, as the shared social adapter runs it: the
 * vendor's endpoints and scope spelling, how it reads the signed-in user, and its quirks.
 * Everything else (state, PKCE, the token request, errors, logging) is the shared flow's.
 */
export interface SocialVendor {
  /** The vendor's production endpoints, by the name of the setting that overrides each. */
  endpoints: Readonly<Record<'AuthorizationEndpoint' | 'TokenEndpoint' | 'UserInformationEndpoint', string>> &
    Readonly<Record<string, string>>;
  /** The RFC 9207 issuer an `iss` in the answer must equal: the authorization endpoint's origin unless said here. */
  issuer?(authorizationEndpoint: string): string;
  /** The scopes to request for the configured ones (generic `profile` and `email` translated). */
  scopes(configured: readonly string[]): string[];
  /** The signed-in user's claims, read from the vendor's API. */
  readUser(api: VendorApi): Promise<Record<string, unknown>>;
  /** An adjustment of the vendor's HTTP answers before openid-client reads them (GitHub's token errors with status 200). */
  adjustFetch?(tokenEndpoint: string): (fetch: CustomFetch) => CustomFetch;
  /** What of the vendor's error body may be logged, narrowed field by field. */
  errorDetails?(body: unknown): Record<string, unknown> | undefined;
  /** Whether the vendor issues refresh tokens this adapter may spend. */
  refreshes: boolean;
}
