import { inject, injectable } from 'tsyringe';
import { subjectOf } from '../../domain/claims/principal.js';
import { sessionLifetime, touchIntervalMs } from '../../domain/session-lifetime.js';
import type { ProjectTemplateSettings } from '../../domain/settings/settings.js';
import { AuditLogToken, type AuditLog, type AuditRequest } from '../ports/audit-log.js';
import { ClockToken, type Clock } from '../ports/clock.js';
import { SettingsToken } from '../settings-token.js';
import type { IdentityProviders } from '../identity-providers.js';
import { IdentityProvidersToken } from '../ports/identity-provider.js';
import { ProviderSessions, setProviderSessionFields } from '../sign-in/provider-sessions.js';
import type { BrowserSession, SessionFields } from '../sign-in/session-fields.js';
import { SignInRecords, type SignIn } from '../sign-in/sign-in-records.js';
import { RefreshProviderSession } from './refresh-provider-session.js';
import { ConnectionRemovals } from '../connections/connection-removals.js';
import { EndSessions } from './end-sessions.js';

/**
 * The cookie scheme's authenticate step, once the session record is loaded (its idle and
 * absolute limits already enforced): the sign-in it points to, the idle timeout slid
 * forward, and the provider session refreshed when its adapter's time has come: kept on
 * an outage, dropped only when the provider refuses it for good.
 */
@injectable()
export class AuthenticateSession {
  private readonly touchEveryMs: number;

  constructor(
    @inject(SignInRecords) private readonly signIns: SignInRecords,
    @inject(ProviderSessions) private readonly providerSessions: ProviderSessions,
    @inject(RefreshProviderSession) private readonly refresh: RefreshProviderSession,
    @inject(ClockToken) private readonly clock: Clock,
    @inject(SettingsToken) settings: ProjectTemplateSettings,
    @inject(AuditLogToken) private readonly audit: AuditLog,
    @inject(IdentityProvidersToken) private readonly providers: IdentityProviders,
    @inject(ConnectionRemovals) private readonly removals: ConnectionRemovals,
    @inject(EndSessions) private readonly endSessions: EndSessions,
  ) {
    this.touchEveryMs = touchIntervalMs(sessionLifetime(settings.Session));
  }

  /** The session's sign-in, or undefined when it has none (anonymous). */
  async execute(session: BrowserSession, request?: AuditRequest): Promise<SignIn | undefined> {
    const fields = session.fields;
    const signIn = await this.signIns.read(fields.signIn);
    if (!signIn) return undefined;
    if (signIn.connection) {
      if (!this.providers.holds(signIn.connection)) return undefined;
      // Started before its connection was last removed: ended, even if it is back (a Map lookup once known).
      const removed = this.removals.endedBy(signIn.connection.name, fields.createdAt);
      if (removed === true || (removed !== false && (await removed))) return this.endRemoved(session, request);
    }
    const now = this.clock.now();
    if (typeof fields.lastSeenAt !== 'number' || now - fields.lastSeenAt >= this.touchEveryMs) fields.lastSeenAt = now;
    if (fields.providerSession === true && this.refresh.needsRefresh(fields.refreshAt)) {
      await this.refreshProviderSession(signIn, fields, request);
    }
    return signIn;
  }

  /** A session of a connection removed since it started: ended as the removal's ending would have. */
  private async endRemoved(session: BrowserSession, request: AuditRequest | undefined): Promise<undefined> {
    if (session.handle !== undefined) {
      await this.endSessions.execute(
        { session: session.handle },
        { by: 'system', cause: 'connection_removed', request },
      );
    }
    session.end();
    return undefined;
  }

  private async refreshProviderSession(
    signIn: SignIn,
    fields: SessionFields,
    request: AuditRequest | undefined,
  ): Promise<void> {
    const result = await this.refresh.execute(signIn.ref, signIn.provider, () =>
      this.providerSessions.load(signIn.ref),
    );
    if (result.outcome === 'refreshed') {
      // Written only while the sign-in's record still exists: a logout that got there first stands.
      if (await this.providerSessions.replace(signIn.ref, result.session)) {
        setProviderSessionFields(fields, result.session);
      }
    } else if (result.outcome === 'refused') {
      await this.providerSessions.drop(signIn.ref);
      setProviderSessionFields(fields, undefined);
      // A definite refusal is an event of this sign-in; an outage (kept, retried) is only logged.
      if (result.code !== undefined) {
        this.audit.record({
          type: 'tokens.refresh_failed',
          request,
          provider: signIn.provider,
          subject: subjectOf(signIn.principal),
          session: fields.publicId,
          code: result.code,
        });
      }
    }
  }
}
