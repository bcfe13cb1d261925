import { inject, injectable } from 'tsyringe';
import { sessionLifetime, touchIntervalMs } from '../../domain/session-lifetime.js';
import type { ProjectTemplateSettings } from '../../domain/settings/settings.js';
import { ClockToken, type Clock } from '../ports/clock.js';
import { SettingsToken } from '../settings-token.js';
import { SavedTokens, setTokenFields } from '../sign-in/saved-tokens.js';
import type { BrowserSession, SessionFields } from '../sign-in/session-fields.js';
import { SignInRecords, type SignIn } from '../sign-in/sign-in-records.js';
import { RefreshTokens } from './refresh-tokens.js';

/**
 * The cookie scheme's authenticate step, once the session record is loaded (its idle and
 * absolute limits already enforced): the sign-in it points to, the idle timeout slid
 * forward, and saved tokens refreshed when their access token has expired: kept on an
 * outage, dropped only when the provider refuses them for good.
 */
@injectable()
export class AuthenticateSession {
  private readonly touchEveryMs: number;

  constructor(
    @inject(SignInRecords) private readonly signIns: SignInRecords,
    @inject(SavedTokens) private readonly savedTokens: SavedTokens,
    @inject(RefreshTokens) private readonly refresh: RefreshTokens,
    @inject(ClockToken) private readonly clock: Clock,
    @inject(SettingsToken) settings: ProjectTemplateSettings,
  ) {
    this.touchEveryMs = touchIntervalMs(sessionLifetime(settings.Session));
  }

  /** The session's sign-in, or undefined when it has none (anonymous). */
  async execute(session: BrowserSession): Promise<SignIn | undefined> {
    const fields = session.fields;
    const signIn = await this.signIns.read(fields.signIn);
    if (!signIn) return undefined;
    const now = this.clock.now();
    if (typeof fields.lastSeenAt !== 'number' || now - fields.lastSeenAt >= this.touchEveryMs) fields.lastSeenAt = now;
    if (
      fields.tokensSaved === true &&
      this.refresh.needsRefresh(fields.tokensExpireAt, fields.tokensRefreshable === true)
    ) {
      await this.refreshSavedTokens(signIn, fields);
    }
    return signIn;
  }

  private async refreshSavedTokens(signIn: SignIn, fields: SessionFields): Promise<void> {
    const result = await this.refresh.execute(signIn.ref, signIn.provider, () => this.savedTokens.load(signIn.ref));
    if (result.outcome === 'refreshed') {
      // Written only while the sign-in's tokens still exist: a logout that got there first stands.
      if (await this.savedTokens.replace(signIn.ref, result.tokens)) setTokenFields(fields, result.tokens);
    } else if (result.outcome === 'refused') {
      await this.savedTokens.drop(signIn.ref);
      setTokenFields(fields, undefined);
    }
  }
}
