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
  /** The organization a connection signed the user in for (set by Gatehouse from the connection, never from a provider). */
  Organization: 'application:organization',
  /** The connection that signed the user in (set by Gatehouse). */
  Connection: 'application:connection',
  /**
   * A role within `application:organization`, never the deployment's: set by Gatehouse
   * only from the connection's `RoleMappings` (docs/connections.md, What a customer's
   * provider can grant). Read together with the organization claim.
   */
  OrganizationRole: 'application:organization_role',
  /** A permission within `application:organization`: set by Gatehouse only from the connection's `PermissionMappings`. */
  OrganizationPermission: 'application:organization_permission',
  /**
   * Present (`true`) only on a sign-in through a connection the deployment's configuration
   * marked `GrantsDeploymentRoles`: its roles and permissions are the deployment's.
   */
  GrantsDeploymentRoles: 'application:grants_deployment_roles',
  /** When the person last authenticated at the provider, in seconds since the epoch (set by Gatehouse: docs/step-up.md). */
  AuthTime: 'application:auth_time',
  /** How the person authenticated (`amr` values, RFC 8176; set by Gatehouse). */
  AuthenticationMethods: 'application:amr',
  /** The authentication context class the sign-in met (`acr`; set by Gatehouse). */
  AuthenticationContextClass: 'application:acr',
} as const;

/**
 * Application claims only Gatehouse sets, from what it checked itself: a provider that
 * sends one (in the application namespace, or mapped to it) has it dropped, whatever the
 * provider. Without this, one organization's identity provider could claim to sign its
 * users in as members of another.
 */
export const GATEHOUSE_SET_CLAIMS: ReadonlySet<string> = new Set([
  ClaimTypes.Organization,
  ClaimTypes.Connection,
  // Only a connection's mappings make an organization role; only the configuration lets a connection speak for the deployment.
  ClaimTypes.OrganizationRole,
  ClaimTypes.OrganizationPermission,
  ClaimTypes.GrantsDeploymentRoles,
  // From what the provider's protocol proved (ID token, AuthnStatement), never from an attribute:
  // a provider attribute `application:amr=mfa` would otherwise pass any step-up.
  ClaimTypes.AuthTime,
  ClaimTypes.AuthenticationMethods,
  ClaimTypes.AuthenticationContextClass,
]);

/** Prefix of every application-owned claim type. */
export const APPLICATION_CLAIM_PREFIX = 'application:';
