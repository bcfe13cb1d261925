/*
 * Domain verification: proof, through DNS, that a customer controls an e-mail domain before
 * any sign-in is routed to its connection by that domain. A customer adding a domain is given
 * a TXT record to publish (`_gatehouse-challenge.<domain>` holding
 * `gatehouse-domain-verification=<token>`); the domain routes nobody until a look-up finds
 * that exact record, and it stops routing again when the record has been missing on several
 * periodic re-checks in a row (the domain was sold, or the customer left). These are the pure
 * rules: the record to publish, what counts as finding it, and the state each check leads to
 * with the audit events it yields. The look-up is the TxtRecords port; the administration
 * API and the periodic re-check apply these rules (application/administration/).
 */
import { normalizeDomainPattern } from './email-domain.js';

export const DEFAULT_RECORD_NAME_PREFIX = '_gatehouse-challenge';
export const DEFAULT_RECORD_VALUE_PREFIX = 'gatehouse-domain-verification=';
export const DEFAULT_MISSES_BEFORE_UNVERIFIED = 3;

/** The record names' and values' prefixes, when a deployment chooses its own. */
export interface RecordPrefixes {
  namePrefix?: string;
  valuePrefix?: string;
}

/** The TXT record a customer publishes to prove a domain: its full name and its one value. */
export interface VerificationRecord {
  /** The domain pattern as connections hold it (`example.com`, `*.example.com`). */
  domain: string;
  name: string;
  value: string;
}

/**
 * The answer of a TXT look-up: the records found (each as the character-strings it arrived
 * in), no such name or no TXT record there (NXDOMAIN, NODATA), or no answer to be had
 * (time-out, SERVFAIL, refused).
 */
export type TxtAnswer =
  { kind: 'answered'; records: string[][] } | { kind: 'none' } | { kind: 'failed'; reason: string };

/** What one check found: the record, not the record, or nothing it can vouch for either way. */
export type CheckOutcome = 'found' | 'missing' | 'unknown';

// A token is ours (random, base64url), never a customer's text: long enough not to be
// guessed from another customer's record, short enough for one 255-byte character-string.
const TOKEN = /^[A-Za-z0-9_-]{16,128}$/;
// One DNS label of letters, digits, `_` and `-`, as an owner name prefix must be.
const NAME_PREFIX = /^[A-Za-z0-9_-]{1,63}$/;
// Printable ASCII without spaces or quotes, so a value reads the same in every DNS console.
const VALUE_PREFIX = /^[!#-~]{1,64}$/;

/**
 * The record that proves `domainPattern` with `token`, or which input is unfit. A wildcard
 * (`*.example.com`) is proved through its base domain (`example.com`): whoever controls the
 * zone controls its subdomains. The name is lower case (IDNA for names in other scripts), so
 * `Example.COM` and `example.com.` get one record.
 */
export function verificationRecord(
  domainPattern: string,
  token: string,
  prefixes: RecordPrefixes = {},
): VerificationRecord | { problem: 'domain' | 'token' | 'prefix' } {
  const namePrefix = prefixes.namePrefix ?? DEFAULT_RECORD_NAME_PREFIX;
  const valuePrefix = prefixes.valuePrefix ?? DEFAULT_RECORD_VALUE_PREFIX;
  if (!NAME_PREFIX.test(namePrefix) || !VALUE_PREFIX.test(valuePrefix)) return { problem: 'prefix' };
  const domain = normalizeDomainPattern(domainPattern);
  if (domain === undefined) return { problem: 'domain' };
  if (!TOKEN.test(token)) return { problem: 'token' };
  const base = domain.startsWith('*.') ? domain.slice(2) : domain;
  return { domain, name: `${namePrefix}.${base}`, value: `${valuePrefix}${token}` };
}

/**
 * Whether a TXT answer holds `expectedValue`: one whole record, its character-strings joined
 * (RFC 7208 3.3 joins them without spaces; a character-string holds at most 255 bytes and
 * DNS consoles split values where they please), equal to it byte for byte, case included.
 * Other records at the name (SPF, another service's proof) are ignored. A look-up that failed proves nothing either way: `unknown`,
 * never `missing`.
 */
export function checkTxtAnswer(answer: TxtAnswer, expectedValue: string): CheckOutcome {
  switch (answer.kind) {
    case 'failed':
      return 'unknown';
    case 'none':
      return 'missing';
    case 'answered':
      return answer.records.some((chunks) => chunks.join('') === expectedValue) ? 'found' : 'missing';
  }
}

/**
 * Where a domain stands. `unverified` routes nobody. `verified` routes, and counts the
 * re-checks in a row that missed the record since the last one that found it.
 */
export type DomainVerification =
  | { domain: string; state: 'unverified' }
  | { domain: string; state: 'verified'; verifiedAt: number; confirmedAt: number; misses: number };

/** The audit events of a domain's verification: identifiers and counts, never the token. */
export type DomainVerificationEvent =
  | { type: 'domain.verified'; domain: string; at: number }
  | { type: 'domain.unverified'; domain: string; at: number; misses: number };

/** A domain just added: it routes nobody until a check finds its record. */
export function unverifiedDomain(record: VerificationRecord): DomainVerification {
  return { domain: record.domain, state: 'unverified' };
}

/**
 * The state after one check made at `at` (milliseconds since the epoch), and the events to
 * audit. A check that finds the record verifies the domain (or confirms it, clearing the
 * misses); each check that misses it counts, and the `missesBeforeUnverified`-th in a row
 * (default 3) un-verifies it, so one botched zone edit does not lock a company out. An
 * `unknown` check (the resolver timed out or failed) changes nothing: an outage of DNS is
 * neither proof nor disproof, and must not un-verify every customer at once.
 */
export function afterCheck(
  current: DomainVerification,
  outcome: CheckOutcome,
  at: number,
  missesBeforeUnverified: number = DEFAULT_MISSES_BEFORE_UNVERIFIED,
): { verification: DomainVerification; events: DomainVerificationEvent[] } {
  if (!Number.isInteger(missesBeforeUnverified) || missesBeforeUnverified < 1) {
    throw new RangeError('missesBeforeUnverified must be a whole number of at least 1');
  }
  const { domain } = current;
  if (outcome === 'unknown') return { verification: current, events: [] };
  if (current.state === 'unverified') {
    if (outcome === 'missing') return { verification: current, events: [] };
    return {
      verification: { domain, state: 'verified', verifiedAt: at, confirmedAt: at, misses: 0 },
      events: [{ type: 'domain.verified', domain, at }],
    };
  }
  if (outcome === 'found') return { verification: { ...current, confirmedAt: at, misses: 0 }, events: [] };
  const misses = current.misses + 1;
  if (misses < missesBeforeUnverified) return { verification: { ...current, misses }, events: [] };
  return {
    verification: { domain, state: 'unverified' },
    events: [{ type: 'domain.unverified', domain, at, misses }],
  };
}
