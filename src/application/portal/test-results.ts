import { sha256 } from '@oslojs/crypto/sha2';
import { encodeBase64urlNoPadding } from '@oslojs/encoding';
import { ClaimTypes } from '../../domain/claims/claim-types.js';
import { claimValues, subjectOf, type Principal } from '../../domain/claims/principal.js';
import { DomainOwners } from '../../domain/connections/domain-owners.js';
import { emailDomain } from '../../domain/connections/email-domain.js';
import {
  organizationRefusal,
  organizationRefusalReason,
  type OrganizationBinding,
} from '../../domain/connections/organization-guard.js';
import { inject, injectable } from 'tsyringe';
import { ClockToken, type Clock } from '../ports/clock.js';
import { PendingSignInStoreToken, type SessionStore, type StoredRecord } from '../ports/session-store.js';

/** What a setup portal's test sign-in found: shown to that portal session only, kept half an hour. */
export interface TestResult {
  at: number;
  connection: string;
  /** `passed`: the organization guard would let this person in; `refused`: it would not, and why. */
  outcome: 'passed' | 'refused';
  code?: string;
  reason?: string;
  /** The e-mail addresses' domains, each with whether it routes (proved) here. */
  domains: Array<{ domain: string; verified: boolean }>;
  /** The normalized claims that arrived, as a sign-in would have them (the guard's own claims aside). */
  claims: Array<{ type: string; value: string }>;
  /** SHA-256 of the subject, base64url: which account it was, without the identifier itself. */
  subjectSha256?: string;
  /** It tested a draft of the activated connection (the portal's change waiting for activation), not the live version. */
  draft?: boolean;
}

const RESULT_LIFETIME_MS = 30 * 60_000;
const MOST_CLAIMS = 100;

const keyOf = (portal: string) => `portal-test:${portal}`;

/**
 * The results of the setup portal's test sign-ins, in the pending-sign-in store under the
 * portal session they belong to. A test completes a real sign-in with the identity provider
 * (every check of the protocol runs) and then, instead of signing anyone in, keeps what
 * arrived and what the organization guard would decide, for the portal's result page.
 */
@injectable()
export class PortalTestResults {
  constructor(
    @inject(PendingSignInStoreToken) private readonly store: SessionStore,
    @inject(ClockToken) private readonly clock: Clock,
  ) {}

  async record(
    portal: string,
    binding: OrganizationBinding,
    principal: Principal,
    raw: Readonly<Record<string, unknown>>,
    tested: { draft: boolean } = { draft: false },
  ): Promise<TestResult> {
    const refusal = organizationRefusal(binding, principal, raw);
    const subject = subjectOf(principal);
    const result: TestResult = {
      at: this.clock.now(),
      connection: binding.connection,
      outcome: refusal ? 'refused' : 'passed',
      ...(refusal ? { code: refusal, reason: organizationRefusalReason(refusal) } : {}),
      domains: claimValues(principal, ClaimTypes.Email).flatMap((address) => {
        const found = emailDomain(address);
        if (!('domain' in found)) return [];
        return [
          {
            domain: found.domain,
            verified: binding.domains.some((pattern) => DomainOwners.covers(pattern, found.domain)),
          },
        ];
      }),
      claims: principal.claims.slice(0, MOST_CLAIMS).map(({ type, value }) => ({ type, value })),
      ...(tested.draft ? { draft: true } : {}),
      ...(subject ? { subjectSha256: encodeBase64urlNoPadding(sha256(new TextEncoder().encode(subject))) } : {}),
    };
    const stored = { ...result } as unknown as StoredRecord;
    if (!(await this.store.replace(keyOf(portal), stored, RESULT_LIFETIME_MS)))
      await this.store.create(keyOf(portal), stored, RESULT_LIFETIME_MS);
    return result;
  }

  async latest(portal: string): Promise<TestResult | undefined> {
    const record = await this.store.get(keyOf(portal));
    return record && typeof record.outcome === 'string' ? (record as unknown as TestResult) : undefined;
  }
}
