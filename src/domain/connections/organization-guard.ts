import { ClaimTypes } from '../claims/claim-types.js';
import { narrowClaimValues } from '../claims/normalize-claims.js';
import { claimValues, type Principal } from '../claims/principal.js';
import { DomainOwners } from './domain-owners.js';
import { emailDomain } from './email-domain.js';

/** What a connection vouches for: the organization it signs people in for, and that organization's domains. */
export interface OrganizationBinding {
  connection: string;
  organization: string;
  /** Normalized `Domains` patterns. */
  domains: readonly string[];
}

/** Why a sign-in through a connection is refused: a stable code each. */
export type OrganizationRefusal = 'idp.email_missing' | 'idp.email_unverified' | 'idp.domain_not_allowed';

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
  const inDomains = (address: string) => {
    const found = emailDomain(address);
    return 'domain' in found && binding.domains.some((pattern) => DomainOwners.covers(pattern, found.domain));
  };
  return addresses.every(inDomains) ? undefined : 'idp.domain_not_allowed';
}

/** The principal with the claims only Gatehouse sets: the organization and the connection. */
export function withOrganization(principal: Principal, binding: OrganizationBinding): Principal {
  const issuer = principal.scheme;
  return {
    scheme: principal.scheme,
    claims: [
      ...principal.claims,
      { type: ClaimTypes.Organization, value: binding.organization, issuer },
      { type: ClaimTypes.Connection, value: binding.connection, issuer },
    ],
  };
}
