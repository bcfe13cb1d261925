import { sha256 } from '@oslojs/crypto/sha2';
import { encodeBase64urlNoPadding, encodeHexLowerCase } from '@oslojs/encoding';
import { inject, injectable } from 'tsyringe';
import { ClaimTypes } from '../../domain/claims/claim-types.js';
import { claimValues, subjectOf, type Principal } from '../../domain/claims/principal.js';
import { attemptReason } from '../../domain/connections/attempt-reasons.js';
import { DomainOwners } from '../../domain/connections/domain-owners.js';
import { emailDomain } from '../../domain/connections/email-domain.js';
import { ClockToken, type Clock } from '../ports/clock.js';
import { LoggerToken, type Logger } from '../ports/logger.js';
import { SessionStoreToken, type SessionStore } from '../ports/session-store.js';
import { randomToken } from '../random-token.js';

/** One sign-in attempt through a connection, as its organization's IT administrator sees it: nothing personal. */
export interface SignInAttempt {
  /** Milliseconds since the epoch. */
  at: number;
  outcome: 'succeeded' | 'refused';
  /** The refusal's stable code (`idp.domain_not_allowed`). */
  code?: string;
  /** The refusal in one line of words (attempt-reasons.ts, else the refusal's own safe message). */
  reason?: string;
  /** The domain of the address the person signed in with (normalized: at most 253 characters). */
  emailDomain?: string;
  /** SHA-256 of the subject, base64url (as the portal's test result and the audit's `subjectSha256`). */
  subjectSha256?: string;
}

/** Whose attempts: a connection of an organization (a name reused by another organization starts empty). */
export interface AttemptOwner {
  organization: string;
  connection: string;
}

/** What a completed or refused sign-in tells of itself. */
export interface AttemptReport {
  outcome: 'succeeded' | 'refused';
  code?: string;
  /** The refusal's safe message, when it has one: the reason of a code the table does not know. */
  safeMessage?: string;
  /** The normalized claims, when the answer got that far. */
  principal?: Principal;
  /** The connection's routing domains: the address shown is the first outside them, else the first. */
  domains?: readonly string[];
}

/** The attempts kept per connection: the newest this many. */
export const ATTEMPTS_KEPT = 100;
/** How long an attempt is kept. */
export const ATTEMPT_LIFETIME_MS = 30 * 24 * 60 * 60_000;
/** The longest reason kept from a refusal's own message (one line). */
const MAX_REASON_LENGTH = 300;

/**
 * The recent sign-in attempts of each connection (the setup portal's and the API's "why
 * can't our people sign in"), in the session store's indexes: one index per connection,
 * each attempt a member until 30 days after it, the oldest beyond the newest 100 removed
 * after each write. The index is ordered and expiring on either store (memory or Redis, so
 * every instance sees every attempt), and it is the connection's own: a flood of attempts,
 * from a hostile identity provider or a bot posting at its callback, can only push out that
 * connection's older attempts, never grow the index or touch another connection's. Kept in
 * the signed-in store, not the pending one that anonymous challenges fill. Recording never
 * fails the sign-in it reports.
 */
@injectable()
export class SignInAttempts {
  constructor(
    @inject(SessionStoreToken) private readonly store: SessionStore,
    @inject(ClockToken) private readonly clock: Clock,
    @inject(LoggerToken) private readonly logger: Logger,
  ) {}

  async record(owner: AttemptOwner, report: AttemptReport): Promise<void> {
    const at = this.clock.now();
    const attempt = attemptOf(at, report);
    const key = indexKey(owner);
    try {
      // A random id: two attempts alike in the same millisecond are two members.
      await this.store.addToIndex(key, JSON.stringify({ id: randomToken(6), ...attempt }), at + ATTEMPT_LIFETIME_MS);
      const members = await this.store.indexMembers(key);
      for (const oldest of members.slice(0, Math.max(0, members.length - ATTEMPTS_KEPT))) {
        await this.store.removeFromIndex(key, oldest);
      }
    } catch {
      this.logger.warn({ connection: owner.connection }, 'a sign-in attempt could not be kept for the recent attempts');
    }
  }

  /** The connection's kept attempts, newest first. */
  async recent(owner: AttemptOwner): Promise<SignInAttempt[]> {
    const members = await this.store.indexMembers(indexKey(owner));
    return members
      .slice(-ATTEMPTS_KEPT)
      .flatMap((member) => {
        const attempt = readAttempt(member);
        return attempt ? [attempt] : [];
      })
      .reverse();
  }
}

/** The store key of a connection's attempts: a hash, so that no organization's name is a key name. */
function indexKey({ organization, connection }: AttemptOwner): string {
  const hash = encodeHexLowerCase(sha256(new TextEncoder().encode(`${organization}\n${connection.toLowerCase()}`)));
  return `sign-in-attempts:${hash.slice(0, 40)}`;
}

function attemptOf(at: number, report: AttemptReport): SignInAttempt {
  const { principal, code } = report;
  const subject = principal ? subjectOf(principal) : undefined;
  const domain = principal ? domainOf(principal, report.domains ?? []) : undefined;
  // The table's reason is read when the attempt is shown; only a message it cannot give is kept.
  const reason = code !== undefined && attemptReason(code) === undefined ? oneLine(report.safeMessage) : undefined;
  return {
    at,
    outcome: report.outcome,
    ...(code === undefined ? {} : { code }),
    ...(reason === undefined ? {} : { reason }),
    ...(domain === undefined ? {} : { emailDomain: domain }),
    ...(subject === undefined
      ? {}
      : { subjectSha256: encodeBase64urlNoPadding(sha256(new TextEncoder().encode(subject))) }),
  };
}

/**
 * The domain of the first address outside the connection's domains (the one a refusal is
 * about), else of the first address: normalized by emailDomain, so at most 253 characters
 * of letters, digits, dots and hyphens, whatever the provider sent.
 */
function domainOf(principal: Principal, domains: readonly string[]): string | undefined {
  const found = claimValues(principal, ClaimTypes.Email).flatMap((address) => {
    const parsed = emailDomain(address);
    return 'domain' in parsed ? [parsed.domain] : [];
  });
  return found.find((domain) => !domains.some((pattern) => DomainOwners.covers(pattern, domain))) ?? found[0];
}

function oneLine(message: string | undefined): string | undefined {
  const line = message?.split(/[\r\n]/, 1)[0]?.trim();
  return line ? line.slice(0, MAX_REASON_LENGTH) : undefined;
}

/** A member as written by `record`, narrowed field by field (the store hands back text). */
function readAttempt(member: string): SignInAttempt | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(member);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const fields = parsed as Record<string, unknown>;
  const outcome = fields.outcome;
  if (typeof fields.at !== 'number' || (outcome !== 'succeeded' && outcome !== 'refused')) return undefined;
  const text = (name: string) => (typeof fields[name] === 'string' ? (fields[name] as string) : undefined);
  const code = text('code');
  const reason = (code === undefined ? undefined : attemptReason(code)) ?? text('reason');
  const domain = text('emailDomain');
  const subject = text('subjectSha256');
  return {
    at: fields.at,
    outcome,
    ...(code === undefined ? {} : { code }),
    ...(reason === undefined ? {} : { reason }),
    ...(domain === undefined ? {} : { emailDomain: domain }),
    ...(subject === undefined ? {} : { subjectSha256: subject }),
  };
}
