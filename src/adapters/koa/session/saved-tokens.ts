import type { SessionTokens } from '../../../application/ports/identity-provider.js';
import type { SessionStore } from '../../../application/ports/session-store.js';
import { newAntiForgeryToken } from '../anti-forgery.js';
import { readTokens, type SessionFields } from './session-state.js';

/**
 * Tokens saved at sign-in (`SaveTokens=true`) live in their own server-side record, not
 * in the session: they are kilobytes of JWTs that every request would otherwise load,
 * hash and compare, while only sign-out, refresh and application code calling an API need
 * them. The session keeps a random reference and the access token's expiry.
 */
export class SavedTokens {
  constructor(
    private readonly store: SessionStore,
    /** As long as a session can live: the record never outlives its session by much. */
    private readonly ttlMs: number,
  ) {}

  async save(session: SessionFields, tokens: SessionTokens | undefined): Promise<void> {
    if (!tokens) return this.drop(session);
    const ref = session.tokensRef ?? newAntiForgeryToken();
    await this.store.set(key(ref), { ...tokens }, this.ttlMs);
    session.tokensRef = ref;
    session.tokensExpireAt = tokens.expiresAt;
    session.tokensRefreshable = tokens.refreshToken !== undefined;
  }

  async load(session: SessionFields): Promise<SessionTokens | undefined> {
    return typeof session.tokensRef === 'string' ? readTokens(await this.store.get(key(session.tokensRef))) : undefined;
  }

  async drop(session: SessionFields): Promise<void> {
    if (typeof session.tokensRef === 'string') await this.store.destroy(key(session.tokensRef));
    delete session.tokensRef;
    delete session.tokensExpireAt;
    delete session.tokensRefreshable;
  }
}

function key(ref: string): string {
  return `tokens:${ref}`;
}
