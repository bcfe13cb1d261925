/**
 * The clock difference allowed between an identity provider and this server when reading
 * when a person signed in (`auth_time`, `AuthnInstant`), either way: a sign-in time this
 * much before a step-up's challenge still counts as after it, and one further ahead of now
 * is refused. docs/step-up.md promises 3 minutes; the SAML checks allow the same.
 */
export const AUTHENTICATION_CLOCK_SKEW_MS = 3 * 60 * 1000;
