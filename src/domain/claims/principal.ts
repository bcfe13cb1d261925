import { ClaimTypes } from './claim-types.js';

/** One assertion about the signed-in user. */
export interface Claim {
  type: string;
  value: string;
  /** The authentication scheme (provider) that asserted it, e.g. `OpenIdConnect`. */
  issuer: string;
}

/**
 * The signed-in user. There is no "anonymous principal": an anonymous request has no
 * principal at all (`undefined`), so having one means being authenticated.
 */
export interface Principal {
  /** The scheme the user signed in with (`Cookies`, `OpenIdConnect`, `Social3` ...). */
  scheme: string;
  claims: readonly Claim[];
}

/** Every value of the claims of `type`, in order (case-sensitive type match). */
export function claimValues(principal: Principal, type: string): string[] {
  return principal.claims.filter((claim) => claim.type === type).map((claim) => claim.value);
}

/** The first value of the claims of `type`, or undefined. */
export function findClaim(principal: Principal, type: string): string | undefined {
  return principal.claims.find((claim) => claim.type === type)?.value;
}

/**
 * Whether the sign-in speaks for the deployment, so its roles and permissions are the
 * deployment's: true for the deployment's own providers (no connection), and for a
 * connection only when the configuration let it grant them (`GrantsDeploymentRoles`). A
 * customer organization's connection speaks for its organization only.
 */
export function speaksForDeployment(principal: Principal): boolean {
  return (
    !principal.claims.some((claim) => claim.type === ClaimTypes.Connection) ||
    principal.claims.some((claim) => claim.type === ClaimTypes.GrantsDeploymentRoles && claim.value === 'true')
  );
}

/** The user's subject (`application:subject`), if a provider named one. */
export function subjectOf(principal: Principal): string | undefined {
  return findClaim(principal, ClaimTypes.Subject);
}

/** What to call the user on a page: the name, else the email, else the subject identifier. */
export function displayName(principal: Principal): string | undefined {
  return (
    findClaim(principal, ClaimTypes.Name) ??
    findClaim(principal, ClaimTypes.Email) ??
    findClaim(principal, ClaimTypes.Subject)
  );
}
