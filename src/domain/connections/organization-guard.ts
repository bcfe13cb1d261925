import { ClaimTypes } from '../claims/claim-types.js';
import { GatehouseError } from '../errors.js';
import { narrowClaimValues } from '../claims/normalize-claims.js';
import { claimValues, type Principal } from '../claims/principal.js';
import { DomainOwners } from './domain-owners.js';
import { emailDomain } from './email-domain.js';

/** What a connection vouches for: the organization it signs people in for, and that organization's domains. */
export interface OrganizationBinding {
  connection: string;
  organization: string;
  /** Normalized `Domains` patterns that route (the operator's, or proved through DNS). */
  domains: readonly string[];
  /** Normalized `Domains` patterns still waiting for their DNS proof: a sign-in for one is refused until proved. */
  pendingDomains: readonly string[];
  /** The provider's role or group value -> organization role (`RoleMappings`). */
  roleMappings: Readonly<Record<string, string>>;
  /** The provider's role, group or permission value -> organization permission (`PermissionMappings`). */
  permissionMappings: Readonly<Record<string, string>>;
  /** The configuration let this connection grant the deployment's roles and permissions. */
  grantsDeploymentRoles: boolean;
}

/** Why a sign-in through a connection is refused: a stable code each. */
export type OrganizationRefusal =
  'idp.email_missing' | 'idp.email_unverified' | 'idp.domain_not_allowed' | 'idp.domain_not_verified';

/**
 * The rule that keeps one organization's identity provider from signing in another
 * organization's people: the signed-in user must have an e-mail address
 * (`application:email`), every address must be in one of the connection's domains, and
 * the provider must not say it did not verify it (`email_verified: false`). A provider an
 * organization controls can assert anything about anyone; what it cannot do past this
 * rule is assert it for an address outside that organization's domains.
 */
export function organizationRefusal(
  binding: OrganizationBinding,
  principal: Principal,
  rawClaims: Readonly<Record<string, unknown>>,
): OrganizationRefusal | undefined {
  const addresses = claimValues(principal, ClaimTypes.Email);
  if (addresses.length === 0) return 'idp.email_missing';
  // OpenID Connect says it with a boolean (some providers with text); a SAML attribute is a list of text values.
  if (narrowClaimValues(rawClaims.email_verified).some((value) => value.toLowerCase() === 'false')) {
    return 'idp.email_unverified';
  }
  const covered = (patterns: readonly string[]) => (address: string) => {
    const found = emailDomain(address);
    return 'domain' in found && patterns.some((pattern) => DomainOwners.covers(pattern, found.domain));
  };
  if (addresses.every(covered(binding.domains))) return undefined;
  // An address in a domain the organization added but has not proved yet: told apart, so its
  // administrator knows to publish the record rather than to look for a wrong domain.
  const provedOrPending = [...binding.domains, ...binding.pendingDomains];
  return binding.pendingDomains.length > 0 && addresses.every(covered(provedOrPending))
    ? 'idp.domain_not_verified'
    : 'idp.domain_not_allowed';
}

/**
 * The principal a connection's sign-in becomes, with the claims only Gatehouse sets:
 * - the organization and the connection, from the binding (whatever the principal carried);
 * - organization roles and permissions, from the binding's mappings of the values the
 *   provider sent as roles, groups or permissions (an unmapped value grants nothing);
 * - unless the configuration let this connection grant them, none of the deployment's
 *   role and permission claims (`deploymentClaimTypes`): a customer's provider speaks for
 *   its own organization only, so its `Administrator` is never the deployment's.
 */
export function withOrganization(
  principal: Principal,
  binding: OrganizationBinding,
  deploymentClaimTypes: ReadonlySet<string>,
): Principal {
  const issuer = principal.scheme;
  const providerValues = new Set(
    principal.claims
      .filter((claim) => PROVIDER_ROLE_SOURCES.has(claim.type) || deploymentClaimTypes.has(claim.type))
      .map((claim) => claim.value),
  );
  const mapped = (mappings: Readonly<Record<string, string>>, type: string) => {
    const values = new Set<string>();
    for (const value of providerValues) {
      // Own keys only: a provider value `constructor` or `__proto__` maps to nothing.
      const target = Object.hasOwn(mappings, value) ? mappings[value] : undefined;
      if (target !== undefined) values.add(target);
    }
    return [...values].map((value) => ({ type, value, issuer }));
  };
  const kept = principal.claims.filter(
    (claim) =>
      !ORGANIZATION_CLAIMS.has(claim.type) && (binding.grantsDeploymentRoles || !deploymentClaimTypes.has(claim.type)),
  );
  return {
    scheme: principal.scheme,
    claims: [
      ...kept,
      { type: ClaimTypes.Organization, value: binding.organization, issuer },
      { type: ClaimTypes.Connection, value: binding.connection, issuer },
      ...mapped(binding.roleMappings, ClaimTypes.OrganizationRole),
      ...mapped(binding.permissionMappings, ClaimTypes.OrganizationPermission),
      ...(binding.grantsDeploymentRoles ? [{ type: ClaimTypes.GrantsDeploymentRoles, value: 'true', issuer }] : []),
    ],
  };
}

/** The application claims a provider's roles, groups and permissions arrive as (its protocol's table maps them there). */
const PROVIDER_ROLE_SOURCES: ReadonlySet<string> = new Set([ClaimTypes.Role, ClaimTypes.Group, ClaimTypes.Permission]);

/** The claims a connection's binding alone sets: any earlier value of them is replaced, never kept beside. */
const ORGANIZATION_CLAIMS: ReadonlySet<string> = new Set([
  ClaimTypes.Organization,
  ClaimTypes.Connection,
  ClaimTypes.OrganizationRole,
  ClaimTypes.OrganizationPermission,
  ClaimTypes.GrantsDeploymentRoles,
]);

/** What the person is told when the organization guard refuses their sign-in: safe to show. */
const ORGANIZATION_REFUSALS: Readonly<Record<OrganizationRefusal, string>> = {
  'idp.email_missing':
    "The organization's identity provider did not say which e-mail address you signed in with, so this sign-in cannot be accepted here.",
  'idp.email_unverified':
    "The organization's identity provider says your e-mail address is not verified, so this sign-in cannot be accepted here.",
  'idp.domain_not_allowed':
    "Your e-mail address is not in one of this organization's domains: sign in through your own organization's identity provider.",
  'idp.domain_not_verified':
    "Your e-mail address is in a domain this organization has added but not yet proved it owns, so no one can sign in with it here yet. Your administrator finishes the domain's verification in the organization's setup.",
};

/** What a person is told of a refusal, in words (the setup portal's test shows it too). */
export function organizationRefusalReason(refusal: OrganizationRefusal): string {
  return ORGANIZATION_REFUSALS[refusal];
}

/**
 * A connection's sign-in, checked and bound: refused (a safe GatehouseError with the
 * refusal's code) when the organization guard refuses it, otherwise the principal
 * `withOrganization` makes of it.
 */
export function vouchedFor(
  binding: OrganizationBinding,
  principal: Principal,
  rawClaims: Readonly<Record<string, unknown>>,
  deploymentClaimTypes: ReadonlySet<string>,
): Principal {
  const refusal = organizationRefusal(binding, principal, rawClaims);
  if (refusal) throw new GatehouseError(refusal, ORGANIZATION_REFUSALS[refusal], { safe: true });
  return withOrganization(principal, binding, deploymentClaimTypes);
}
