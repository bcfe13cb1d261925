import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';

/**
 * The store key of a pending sign-in flow: a hash of its OAuth `state`, so that a dump
 * of the store does not hand out values an attacker could replay.
 */
export function flowKey(state: string): string {
  return `flow:${encodeHexLowerCase(sha256(new TextEncoder().encode(state)))}`;
}

/** How long a started sign-in may take before its callback is refused. */
export const FLOW_LIFETIME_MS = 15 * 60 * 1000;

/** Pending flows one browser may hold at once (two tabs signing in must both work). */
export const MAX_PENDING_FLOWS = 3;
