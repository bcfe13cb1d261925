import { inject, injectable } from 'tsyringe';
import { subjectOf } from '../../domain/claims/principal.js';
import { GatehouseError } from '../../domain/errors.js';
import type { ProviderKey } from '../../domain/settings/settings.js';
import type { AuditRequest } from '../ports/audit-log.js';
import { SessionStoreToken, type SessionStore } from '../ports/session-store.js';
import type { BrowserSession } from '../sign-in/session-fields.js';
import { SessionIndex } from '../sign-in/session-index.js';
import { SignInRecords } from '../sign-in/sign-in-records.js';
import { EndSessions } from './end-sessions.js';

/** One of the signed-in user's sessions, as the sessions page shows it. */
export interface SessionSummary {
  /** The session's public id: what the page names it by (never its cookie value or store key). */
  id: string;
  provider: ProviderKey;
  device: string;
  createdAt: number;
  lastSeenAt: number;
  /** This browser's own session. */
  current: boolean;
}

/** Which of the user's sessions to end. */
export type SessionsToEnd = { session: string } | 'others' | 'all';

const notYours = () =>
  new GatehouseError('auth.session_unknown', 'No session of yours has that name: it may have ended already.', {
    safe: true,
  });

/**
 * The signed-in user's own sessions: listed (on every instance's store), and ended one at a
 * time, all but this one, or all, through EndSessions. A user can name only their own
 * sessions, by public id; ending this browser's own session signs it out too.
 */
@injectable()
export class ManageSessions {
  constructor(
    @inject(SessionStoreToken) private readonly store: SessionStore,
    @inject(SignInRecords) private readonly signIns: SignInRecords,
    @inject(SessionIndex) private readonly index: SessionIndex,
    @inject(EndSessions) private readonly endSessions: EndSessions,
  ) {}

  async list(browser: BrowserSession): Promise<SessionSummary[]> {
    const user = await this.userOf(browser);
    if (!user) return [];
    const summaries: SessionSummary[] = [];
    for (const handle of await this.index.sessionsOf(user.provider, user.subject)) {
      const record = await this.store.get(handle);
      if (!record || typeof record.publicId !== 'string') continue; // ended or expired meanwhile
      summaries.push({
        id: record.publicId,
        provider: user.provider,
        device: typeof record.device === 'string' ? record.device : 'Unknown browser',
        createdAt: typeof record.createdAt === 'number' ? record.createdAt : 0,
        lastSeenAt: typeof record.lastSeenAt === 'number' ? record.lastSeenAt : 0,
        current: handle === browser.handle,
      });
    }
    return summaries.sort((a, b) => Number(b.current) - Number(a.current) || b.lastSeenAt - a.lastSeenAt);
  }

  /** Ends what was asked; how many sessions ended. This browser's own session ends with `all` or when named. */
  async end(browser: BrowserSession, which: SessionsToEnd, request?: AuditRequest): Promise<number> {
    const user = await this.userOf(browser);
    if (!user) throw notYours();
    const reason = { by: 'user' as const, request };
    if (which === 'others' || which === 'all') {
      const except = which === 'others' ? browser.handle : undefined;
      const cause = which === 'others' ? 'sign_out_others' : 'sign_out_everywhere';
      const count = await this.endSessions.execute({ ...user, ...(except ? { except } : {}) }, { ...reason, cause });
      if (which === 'all') browser.end();
      return count;
    }
    for (const handle of await this.index.sessionsOf(user.provider, user.subject)) {
      const record = await this.store.get(handle);
      if (record?.publicId !== which.session) continue;
      const count = await this.endSessions.execute({ session: handle }, { ...reason, cause: 'signout' });
      if (handle === browser.handle) browser.end();
      return count;
    }
    throw notYours();
  }

  private async userOf(browser: BrowserSession): Promise<{ provider: ProviderKey; subject: string } | undefined> {
    const signIn = await this.signIns.read(browser.fields.signIn);
    const subject = signIn ? subjectOf(signIn.principal) : undefined;
    return signIn?.provider !== undefined && subject !== undefined ? { provider: signIn.provider, subject } : undefined;
  }
}
