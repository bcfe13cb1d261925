import type { Claim, Principal } from '../../domain/claims/principal.js';

/**
 * The principal as the sign-in record stores it: claims as `[type, value]` pairs when
 * they all come from the scheme the user signed in with (always so after a sign-in),
 * which halves the record a process reads when it first sees the session.
 */
export function storePrincipal(principal: Principal): unknown {
  const sameIssuer = principal.claims.every((claim) => claim.issuer === principal.scheme);
  return {
    scheme: principal.scheme,
    claims: sameIssuer ? principal.claims.map((claim) => [claim.type, claim.value]) : principal.claims,
  };
}

/** Reads a stored principal back, field by field: it comes from a store outside the process. */
export function readPrincipal(value: unknown): Principal | undefined {
  if (typeof value !== 'object' || value === null || !('scheme' in value) || !('claims' in value)) return undefined;
  const { scheme, claims } = value;
  if (typeof scheme !== 'string' || !Array.isArray(claims)) return undefined;
  const narrowed: Claim[] = [];
  for (const claim of claims as unknown[]) {
    if (Array.isArray(claim)) {
      const [type, claimValue] = claim as unknown[];
      if (typeof type === 'string' && typeof claimValue === 'string')
        narrowed.push({ type, value: claimValue, issuer: scheme });
    } else if (typeof claim === 'object' && claim !== null) {
      const { type, value: claimValue, issuer } = claim as Record<string, unknown>;
      if (typeof type === 'string' && typeof claimValue === 'string' && typeof issuer === 'string')
        narrowed.push({ type, value: claimValue, issuer });
    }
  }
  return { scheme, claims: narrowed };
}
