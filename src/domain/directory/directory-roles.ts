import { ClaimTypes } from '../claims/claim-types.js';
import type { Claim, Principal } from '../claims/principal.js';
import type { OrganizationBinding } from '../connections/organization-guard.js';
import type { GroupAttributes } from './directory-resources.js';

/**
 * The issuer of the claims an organization's directory grants: told apart from the ones
 * the provider's own claims granted at sign-in (no scheme or connection name holds a
 * colon), so that a change of groups replaces the
 * directory's and leaves the provider's as they were.
 */
export const DIRECTORY_ISSUER = 'gatehouse:directory';

const GRANTED_TYPES: ReadonlySet<string> = new Set([ClaimTypes.OrganizationRole, ClaimTypes.OrganizationPermission]);

/**
 * The principal with the organization roles and permissions its directory groups grant,
 * through the connection's own `RoleMappings` and `PermissionMappings` (the same mappings
 * as the provider's group claims at sign-in): a group is looked up by its `displayName`
 * and by its `externalId` (Okta's group claims carry names, Entra ID's object ids, which
 * its SCIM sends as `externalId`). Whatever the directory granted before is replaced; a
 * role the provider's claims granted stays (it is theirs, until the next sign-in). Only
 * organization claims are ever added: a directory speaks for its organization, never for
 * the deployment. Equal claims are returned as the same object (nothing to write).
 */
export function withDirectoryRoles(
  principal: Principal,
  binding: Pick<OrganizationBinding, 'roleMappings' | 'permissionMappings'>,
  groups: readonly GroupAttributes[],
): Principal {
  const values = new Set<string>();
  for (const group of groups) {
    values.add(group.displayName);
    if (group.externalId !== undefined) values.add(group.externalId);
  }
  const kept = principal.claims.filter(
    (claim) => !(claim.issuer === DIRECTORY_ISSUER && GRANTED_TYPES.has(claim.type)),
  );
  const has = (type: string, value: string) => kept.some((claim) => claim.type === type && claim.value === value);
  const granted: Claim[] = [];
  const grant = (mappings: Readonly<Record<string, string>>, type: string) => {
    for (const value of values) {
      // Own keys only: a group named `constructor` or `__proto__` maps to nothing.
      const target = Object.hasOwn(mappings, value) ? mappings[value] : undefined;
      if (target === undefined || has(type, target) || granted.some((c) => c.type === type && c.value === target)) {
        continue;
      }
      granted.push({ type, value: target, issuer: DIRECTORY_ISSUER });
    }
  };
  grant(binding.roleMappings, ClaimTypes.OrganizationRole);
  grant(binding.permissionMappings, ClaimTypes.OrganizationPermission);
  const claims = [...kept, ...granted];
  return sameClaims(principal.claims, claims) ? principal : { ...principal, claims };
}

function sameClaims(a: readonly Claim[], b: readonly Claim[]): boolean {
  const key = (claim: Claim) => `${claim.type}\n${claim.value}\n${claim.issuer ?? ''}`;
  const left = new Set(a.map(key));
  return a.length === b.length && b.every((claim) => left.has(key(claim)));
}
