/**
 * The authorization metadata an endpoint carries. An endpoint has exactly one of:
 * - `anonymous`: explicitly public (reviewed, and on the allowlist test);
 * - `authorize` with no policy: the default policy (an authenticated user);
 * - `authorize` with policy names: each named policy must pass;
 * - none at all (`undefined`): the fallback policy decides, which requires an authenticated
 *   user when `RequireAuthenticatedUserByDefault` is true and is absent when it is false.
 * Default and fallback are deliberately different things (docs: Authorization rules, 1).
 */
export type EndpointMetadata = { kind: 'anonymous' } | { kind: 'authorize'; policies: readonly string[] };

export const allowAnonymous = (): EndpointMetadata => ({ kind: 'anonymous' });

export const authorize = (...policies: string[]): EndpointMetadata => ({ kind: 'authorize', policies });
