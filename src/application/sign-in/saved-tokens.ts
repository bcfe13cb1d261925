import { inject, injectable } from 'tsyringe';
import type { ProjectTemplateSettings } from '../../domain/settings/settings.js';
import type { SessionTokens } from '../ports/identity-provider.js';
import { SessionStoreToken, type SessionStore, type StoredRecord } from '../ports/session-store.js';
import { SettingsToken } from '../settings-token.js';
import type { SessionFields } from './session-fields.js';
import { readTokens } from './stored-principal.js';

/**
 * Tokens kept at sign-in live in their own server-side record, not in the session: they
 * are kilobytes of JWTs that every request would otherwise load, hash and compare, while
 * only sign-out, refresh and application code calling an API need them. The record
 * belongs to the sign-in and is stored under its reference; the session keeps only
 * whether there are tokens and what requests need to know of them (`tokenFields`).
 * After sign-in the record is only ever replaced while it exists, so a refresh that
 * finishes after a logout cannot leave tokens behind.
 */
@injectable()
export class SavedTokens {
  /** As long as a session can live: the record never outlives its session by much. */
  private readonly ttlMs: number;

  constructor(
    @inject(SessionStoreToken) private readonly store: SessionStore,
    @inject(SettingsToken) settings: ProjectTemplateSettings,
  ) {
    this.ttlMs = settings.Session.AbsoluteLifetime * 1000;
  }

  /** Saves the tokens of a new sign-in. */
  async save(signInRef: string, tokens: SessionTokens): Promise<void> {
    if (!(await this.store.create(key(signInRef), { ...tokens }, this.ttlMs))) {
      throw new Error('Tokens are already saved for this new sign-in.');
    }
  }

  /** Replaces the tokens of a sign-in after a refresh; false when they are gone (a logout got there first). */
  replace(signInRef: string, tokens: SessionTokens): Promise<boolean> {
    return this.store.replace(key(signInRef), { ...tokens }, this.ttlMs);
  }

  async load(signInRef: string): Promise<SessionTokens | undefined> {
    return readTokens(await this.store.get(key(signInRef)));
  }

  async drop(signInRef: string): Promise<void> {
    await this.store.destroy(key(signInRef));
  }

  /** Removes the record a stored session points to: the session ended without a request of its own (expiry). */
  async releaseFor(record: StoredRecord): Promise<void> {
    if (record.tokensSaved === true && typeof record.signIn === 'string') await this.drop(record.signIn);
  }
}

/** What the session record says of its saved tokens: every request needs it, none needs the tokens. */
export function tokenFields(tokens: SessionTokens | undefined): SessionFields {
  if (!tokens) return {};
  return {
    tokensSaved: true,
    ...(tokens.expiresAt === undefined ? {} : { tokensExpireAt: tokens.expiresAt }),
    tokensRefreshable: tokens.refreshToken !== undefined,
  };
}

/** Rewrites what the session record says of its saved tokens: `undefined` when there are none any more. */
export function setTokenFields(fields: SessionFields, tokens: SessionTokens | undefined): void {
  delete fields.tokensSaved;
  delete fields.tokensExpireAt;
  delete fields.tokensRefreshable;
  Object.assign(fields, tokenFields(tokens));
}

function key(signInRef: string): string {
  return `tokens:${signInRef}`;
}
