import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import type { SessionStore } from '../../application/ports/session-store.js';
import { samlRefusal } from './saml-refusals.js';

/** The longest a replay record is kept, whatever validity an assertion claims. */
export const MAX_REPLAY_RECORD_MS = 24 * 60 * 60 * 1000;
/** The shortest: an assertion about to expire is still recorded past the clock skew. */
const MIN_REPLAY_RECORD_MS = 60 * 1000;

/**
 * Assertion IDs already used (SAML Profiles 4.1.4.5: a service provider must ensure a
 * bearer assertion is not used twice within its validity). Recorded in the shared session
 * store with an atomic set-if-absent (`SessionStore.create`), so that two instances behind
 * one load balancer cannot both accept the same assertion; a record lives as long as the
 * assertion could still be presented, capped at a day. The key is a hash of issuer and ID.
 */
export class AssertionReplayCache {
  constructor(private readonly store: SessionStore) {}

  /** Records the assertion as used; refuses it if it was used before. */
  async use(issuer: string, assertionId: string, acceptableUntil: number, now: number): Promise<void> {
    const ttl = Math.min(Math.max(acceptableUntil - now, MIN_REPLAY_RECORD_MS), MAX_REPLAY_RECORD_MS);
    if (!(await this.store.create(replayKey(issuer, assertionId), {}, ttl)))
      throw samlRefusal('idp.assertion_replayed');
  }
}

/** The store key of one assertion: issuer and ID together, so two identity providers' IDs never collide. */
export function replayKey(issuer: string, assertionId: string): string {
  return `saml-assertion:${encodeHexLowerCase(sha256(new TextEncoder().encode(`${issuer}\n${assertionId}`)))}`;
}
