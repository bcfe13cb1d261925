import type { DomainProof } from '../ports/connection-catalog.js';
import {
  afterCheck,
  verificationRecord,
  type CheckOutcome,
  type DomainVerification,
  type DomainVerificationEvent,
  type RecordPrefixes,
  type VerificationRecord,
} from '../../domain/connections/domain-verification.js';

/** 128 random bits, base64url: a TXT token nobody can guess from another customer's. */
export const TOKEN_BYTES = 16;

/** A wildcard (`*.example.com`) has no record of its own: its base domain's proves it. */
export function isWildcard(pattern: string): boolean {
  return pattern.startsWith('*.');
}

/**
 * The proofs of a connection's domains after a write: a domain it had keeps its token and
 * its verification (a replace that keeps a domain keeps it proved), a new one starts
 * unverified with a fresh token, and a domain no longer listed is gone with its proof.
 */
export function proofsAfterWrite(
  domains: readonly string[],
  previous: readonly DomainProof[],
  newToken: () => string,
): DomainProof[] {
  const kept = new Map(previous.map((proof) => [proof.domain, proof]));
  return domains.map(
    (domain) => kept.get(domain) ?? { domain, token: isWildcard(domain) ? '' : newToken(), misses: 0 },
  );
}

/**
 * The TXT record that proves `domain` among `proofs`: its own for a domain, its base
 * domain's for a wildcard (undefined when the base is not among them: add it first).
 */
export function recordFor(
  domain: string,
  proofs: readonly DomainProof[],
  prefixes: RecordPrefixes,
): VerificationRecord | undefined {
  const base = isWildcard(domain) ? domain.slice(2) : domain;
  const proof = proofs.find((candidate) => candidate.domain === base);
  if (proof === undefined || proof.token === '') return undefined;
  const record = verificationRecord(base, proof.token, prefixes);
  return 'problem' in record ? undefined : { ...record, domain };
}

/** Whether a domain routes: proved itself, or a wildcard whose base is proved. */
export function isVerified(domain: string, proofs: readonly DomainProof[]): boolean {
  const base = isWildcard(domain) ? domain.slice(2) : domain;
  return proofs.some((proof) => proof.domain === base && proof.verifiedAt !== undefined);
}

/**
 * A proof after one check at `at` (the domain rules' afterCheck), and the events to audit:
 * found verifies or confirms, the N-th miss in a row un-verifies, a failed look-up changes
 * nothing but the time it was tried.
 */
export function proofAfterCheck(
  proof: DomainProof,
  outcome: CheckOutcome,
  at: number,
  missesBeforeUnverified: number,
): { proof: DomainProof; events: DomainVerificationEvent[] } {
  const current: DomainVerification =
    proof.verifiedAt === undefined
      ? { domain: proof.domain, state: 'unverified' }
      : {
          domain: proof.domain,
          state: 'verified',
          verifiedAt: proof.verifiedAt,
          confirmedAt: at,
          misses: proof.misses,
        };
  const { verification, events } = afterCheck(current, outcome, at, missesBeforeUnverified);
  const { verifiedAt: _verifiedAt, ...rest } = proof;
  const next: DomainProof =
    verification.state === 'verified'
      ? { ...rest, verifiedAt: verification.verifiedAt, checkedAt: at, misses: verification.misses }
      : { ...rest, checkedAt: at, misses: 0 };
  return { proof: next, events };
}
