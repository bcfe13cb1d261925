import type { SessionTokens } from '../../../application/ports/identity-provider.js';
import type { SessionStore, StoredRecord } from '../../../application/ports/session-store.js';
import { readTokens, type SessionFields } from './session-state.js';

/**
 * Tokens saved at sign-in (`SaveTokens=true`) live in their own server-side record, not
 * in the session: they are kilobytes of JWTs that every request would otherwise load,
 * hash and compare, while only sign-out, refresh and application code calling an API need
 * them. The record belongs to the sign-in and is stored under its reference; the session
 * keeps only whether there are tokens and what requests need to know of them (the access
 * token's expiry, whether it can be refreshed).
 */
export class SavedTokens {
  constructor(
    private readonly store: SessionStore,
    /** As long as a session can live: the record never outlives its session by much. */
    private readonly ttlMs: number,
  ) {}

  /** Saves (or, with no tokens, drops) the tokens of the session's sign-in; it must have one. */
  async save(session: SessionFields, tokens: SessionTokens | undefined): Promise<void> {
    if (!tokens) return this.drop(session);
    if (typeof session.signIn !== 'string')
      throw new Error('tokens are saved for a sign-in: create the sign-in record first');
    await this.store.set(key(session.signIn), { ...tokens }, this.ttlMs);
    session.tokensSaved = true;
    session.tokensExpireAt = tokens.expiresAt;
    session.tokensRefreshable = tokens.refreshToken !== undefined;
  }

  async load(session: SessionFields): Promise<SessionTokens | undefined> {
    return session.tokensSaved === true && typeof session.signIn === 'string'
      ? readTokens(await this.store.get(key(session.signIn)))
      : undefined;
  }

  async drop(session: SessionFields): Promise<void> {
    if (session.tokensSaved === true && typeof session.signIn === 'string')
      await this.store.destroy(key(session.signIn));
    delete session.tokensSaved;
    delete session.tokensExpireAt;
    delete session.tokensRefreshable;
  }

  /** Removes the record a stored session points to: the session ended without a request of its own (expiry). */
  async releaseFor(record: StoredRecord): Promise<void> {
    if (record.tokensSaved === true && typeof record.signIn === 'string') await this.store.destroy(key(record.signIn));
  }
}

function key(signInRef: string): string {
  return `tokens:${signInRef}`;
}
