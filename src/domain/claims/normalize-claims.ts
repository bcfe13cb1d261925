import { effectiveClaimMappings, type ClaimMapping } from './claim-mappings.js';
import { APPLICATION_CLAIM_PREFIX, GATEHOUSE_SET_CLAIMS } from './claim-types.js';
import type { Claim, Principal } from './principal.js';

/**
 * Claims that describe the token or the protocol exchange, not the user (OIDC Core 2,
 * 3.1.3.6, 3.3.2.11; back-channel logout `sid`; JWT `jti`). They are checked by the
 * adapter during sign-in and are meaningless afterwards, so they never reach a principal.
 */
export const PROTOCOL_CLAIMS: ReadonlySet<string> = new Set([
  'nonce',
  'aud',
  'iat',
  'exp',
  'nbf',
  'at_hash',
  'c_hash',
  's_hash',
  'auth_time',
  'azp',
  'sid',
  'iss',
  'jti',
]);

export interface NormalizeClaimsInput {
  /** The provider's built-in mapping table (its declaration's `claimMappings`). */
  builtInMappings: readonly ClaimMapping[];
  /** The scheme that authenticated the user; it becomes the issuer of every claim. */
  scheme: string;
  /** Raw provider claims (ID token, userinfo, SAML attributes): untrusted, narrowed here. */
  claims: Readonly<Record<string, unknown>>;
  /** `ClaimsTransformation:Mappings:<ProviderKey>`: added to, or overriding, the built-in table. */
  extraMappings?: Readonly<Record<string, string>>;
  /** `ClaimsTransformation:RemoveOriginalClaims`: keep only application claims. */
  removeOriginalClaims: boolean;
}

/**
 * Turns raw provider claims into a principal carrying application claim types.
 * - Protocol claims are dropped; strings (non-empty) are kept, numbers and booleans
 *   stringified, arrays flattened one level; objects and null are ignored.
 * - Original claims keep their own type unless `removeOriginalClaims`.
 * - Each mapping row adds the source's values under the target type; nothing is invented
 *   for a claim no row maps.
 * - The claims only Gatehouse sets (`GATEHOUSE_SET_CLAIMS`: the organization and
 *   connection) are dropped, sent or mapped.
 * - Claims already in the `application:` namespace pass through unchanged and are not
 *   mapped again, which makes the function idempotent: feeding its output back in as raw
 *   claims yields the same claim set.
 * - A claim appears once per type + value + issuer.
 */
export function normalizeClaims(input: NormalizeClaimsInput): Principal {
  const { builtInMappings, scheme, claims, extraMappings, removeOriginalClaims } = input;
  const originals = new ClaimList(scheme);
  const application = new ClaimList(scheme);
  const sources = new Map<string, string[]>();

  for (const [type, raw] of Object.entries(claims)) {
    if (PROTOCOL_CLAIMS.has(type) || GATEHOUSE_SET_CLAIMS.has(type)) continue;
    const values = narrowClaimValues(raw);
    if (type.startsWith(APPLICATION_CLAIM_PREFIX)) {
      application.add(type, values);
      continue;
    }
    sources.set(type, values);
    if (!removeOriginalClaims) originals.add(type, values);
  }

  // A mapping cannot smuggle a provider's value into a claim only Gatehouse sets either.
  const rows = effectiveClaimMappings(builtInMappings, extraMappings).filter(
    (row) => !GATEHOUSE_SET_CLAIMS.has(row.target),
  );
  for (const row of rows) {
    if (!row.fallback) application.add(row.target, sources.get(row.source) ?? []);
  }
  // After every primary row, so a fallback only fills a target that is still empty.
  for (const row of rows) {
    if (row.fallback && !application.hasType(row.target)) application.add(row.target, sources.get(row.source) ?? []);
  }

  return { scheme, claims: dedupe([...originals.claims, ...application.claims]) };
}

/** Narrows one raw claim value with `typeof`; never trusts its shape. */
export function narrowClaimValues(raw: unknown): string[] {
  const items: readonly unknown[] = Array.isArray(raw) ? raw : [raw];
  return items.flatMap((item) => {
    const value = scalarText(item);
    return value === undefined ? [] : [value];
  });
}

function scalarText(value: unknown): string | undefined {
  // An empty string asserts nothing; dropping it also lets a fallback row (`login`) apply.
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return undefined;
}

class ClaimList {
  readonly claims: Claim[] = [];

  constructor(private readonly issuer: string) {}

  add(type: string, values: readonly string[]): void {
    for (const value of values) this.claims.push({ type, value, issuer: this.issuer });
  }

  hasType(type: string): boolean {
    return this.claims.some((claim) => claim.type === type);
  }
}

function dedupe(claims: readonly Claim[]): Claim[] {
  const seen = new Set<string>();
  return claims.filter((claim) => {
    // JSON of the triple: unambiguous whatever characters the values contain.
    const key = JSON.stringify([claim.type, claim.value, claim.issuer]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
