/**
 * The application-owned claim types (docs: Claims transformation, 1). Policies read these, never a
 * provider's own claim names, so switching identity provider does not change a policy.
 * Everything in the `application:` namespace is application-owned: `normalizeClaims`
 * passes such claims through unchanged instead of mapping them again.
 */
export const ClaimTypes = {
  Subject: 'application:subject',
  Name: 'application:name',
  Email: 'application:email',
  Role: 'application:role',
  Group: 'application:group',
  Permission: 'application:permission',
} as const;

/** Prefix of every application-owned claim type. */
export const APPLICATION_CLAIM_PREFIX = 'application:';
