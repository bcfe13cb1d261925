import { inject, injectable } from 'tsyringe';
import { subjectOf } from '../../domain/claims/principal.js';
import type { ProviderKey } from '../../domain/settings/settings.js';
import { AuditLogToken, type AuditLog, type AuditRequest, type SignOutActor } from '../ports/audit-log.js';
import { SessionStoreToken, type SessionStore } from '../ports/session-store.js';
import { TelemetryToken, type Telemetry } from '../ports/telemetry.js';
import { ProviderSessions } from '../sign-in/provider-sessions.js';
import { SessionIndex } from '../sign-in/session-index.js';
import { SignInRecords } from '../sign-in/sign-in-records.js';

/** Which sessions to end. */
export type SessionSelector =
  /** One session, by its handle. */
  | { session: string }
  /** Every session of a user at a provider, but the one named by `except`. */
  | { provider: ProviderKey; subject: string; except?: string }
  /**
   * The sessions a provider's logout message names (SAML: the NameID, or NameID and
   * SessionIndex). `silentWhenNone`: no `sessions.ended` record when none ended (a message
   * anyone can send, naming nothing here, leaves no trace to flood the audit trail with).
   */
  | { provider: ProviderKey; logoutKeys: readonly string[]; silentWhenNone?: boolean };

/** Why, and by whom: recorded in the audit trail. */
export interface EndingReason {
  by: SignOutActor;
  /** A word of the vocabulary: `signout`, `sign_out_everywhere`, `sign_out_others`, `account_change` ... */
  cause: string;
  request?: AuditRequest;
}

/**
 * The one way a session ends, whoever ends it (the user, the provider, an administrator,
 * the application): the session record is taken (read and removed in one step, so two
 * endings of one session count it once), then its sign-in record and provider session are
 * removed and it leaves its user's index. The session record is read from the store on
 * every request, on every instance, so an ended session is anonymous at its next request
 * everywhere: a process's decoded copy of the sign-in is never reached again. Returns how
 * many sessions ended; records the ending in the audit trail.
 */
@injectable()
export class EndSessions {
  constructor(
    @inject(SessionStoreToken) private readonly store: SessionStore,
    @inject(SignInRecords) private readonly signIns: SignInRecords,
    @inject(ProviderSessions) private readonly providerSessions: ProviderSessions,
    @inject(SessionIndex) private readonly index: SessionIndex,
    @inject(AuditLogToken) private readonly audit: AuditLog,
    @inject(TelemetryToken) private readonly telemetry: Telemetry,
  ) {}

  async execute(selector: SessionSelector, reason: EndingReason): Promise<number> {
    if ('session' in selector) {
      const ended = await this.endOne(selector.session);
      if (ended) this.recordSignOut(reason, ended.provider, ended);
      return ended ? 1 : 0;
    }
    if ('logoutKeys' in selector) return this.endByLogoutKeys(selector, reason);
    const handles = await this.index.sessionsOf(selector.provider, selector.subject);
    let count = 0;
    for (const handle of handles) {
      if (handle === selector.except) continue;
      if (await this.endOne(handle)) count += 1;
      else await this.index.remove(selector.provider, selector.subject, handle); // already gone
    }
    this.audit.record({
      type: 'sessions.ended',
      by: reason.by,
      cause: reason.cause,
      request: reason.request,
      provider: selector.provider,
      subject: selector.subject,
      count,
    });
    return count;
  }

  /** One session ended: counted, and audited as a `signout` with its subject and public id. */
  private recordSignOut(
    reason: EndingReason,
    provider: string | undefined,
    ended: { subject?: string | undefined; publicId?: string | undefined },
  ): void {
    this.telemetry.count('gatehouse.authentication.sign_outs', { cause: reason.cause, by: reason.by });
    this.audit.record({
      type: 'signout',
      by: reason.by,
      cause: reason.cause,
      request: reason.request,
      provider,
      subject: ended.subject,
      session: ended.publicId,
    });
  }

  /**
   * The provider ended these sessions: each one ended is a `signout` by the provider (its
   * subject and public id), and the whole a `sessions.ended` with the count (0 when the
   * provider named sessions that had ended already, or never existed here).
   */
  private async endByLogoutKeys(
    { provider, logoutKeys, silentWhenNone }: Extract<SessionSelector, { logoutKeys: readonly string[] }>,
    reason: EndingReason,
  ): Promise<number> {
    let count = 0;
    for (const logoutKey of logoutKeys) {
      for (const handle of await this.index.sessionsByLogoutKey(provider, logoutKey)) {
        const ended = await this.endOne(handle);
        await this.index.removeByLogoutKey(provider, logoutKey, handle);
        if (!ended) continue;
        count += 1;
        this.recordSignOut(reason, provider, ended);
      }
    }
    if (count === 0 && silentWhenNone) return 0;
    this.audit.record({
      type: 'sessions.ended',
      by: reason.by,
      cause: reason.cause,
      request: reason.request,
      provider,
      count,
    });
    return count;
  }

  /** Ends one session; what it was, or undefined when it had already ended. */
  private async endOne(
    handle: string,
  ): Promise<{ provider?: ProviderKey; subject?: string; publicId?: string } | undefined> {
    const record = await this.store.take(handle);
    if (!record) return undefined;
    const ref = typeof record.signIn === 'string' ? record.signIn : undefined;
    const signIn = await this.signIns.read(ref);
    if (ref !== undefined) await Promise.all([this.providerSessions.drop(ref), this.signIns.release(ref)]);
    const subject = signIn ? subjectOf(signIn.principal) : undefined;
    if (signIn?.provider !== undefined && subject !== undefined) {
      await this.index.remove(signIn.provider, subject, handle);
    }
    return {
      provider: signIn?.provider,
      subject,
      publicId: typeof record.publicId === 'string' ? record.publicId : undefined,
    };
  }
}
