import { inject, injectable } from 'tsyringe';
import type { ProjectTemplateSettings } from '../../domain/settings/settings.js';
import type { ProviderSession, ProviderSessionRecord } from '../ports/identity-provider.js';
import { SessionStoreToken, type SessionStore, type StoredRecord } from '../ports/session-store.js';
import { SettingsToken } from '../settings-token.js';
import type { SessionFields } from './session-fields.js';

/**
 * What an adapter keeps of a sign-in (its provider session: OAuth tokens, a SAML NameID)
 * lives in its own server-side record, not in the session: kilobytes of JWTs that every
 * request would otherwise load, hash and compare, while only sign-out, refresh and single
 * logout need them. The record belongs to the sign-in and is stored under its reference;
 * it is the adapter's, stored and handed back unread. The session keeps only whether
 * there is one and when it wants refreshing (`providerSessionFields`). After sign-in the
 * record is only ever replaced while it exists, so a refresh that finishes after a logout
 * cannot leave it behind.
 */
@injectable()
export class ProviderSessions {
  /** As long as a session can live: the record never outlives its session by much. */
  private readonly ttlMs: number;

  constructor(
    @inject(SessionStoreToken) private readonly store: SessionStore,
    @inject(SettingsToken) settings: ProjectTemplateSettings,
  ) {
    this.ttlMs = settings.Session.AbsoluteLifetime * 1000;
  }

  /** Keeps the provider session of a new sign-in. */
  async save(signInRef: string, session: ProviderSession): Promise<void> {
    if (!(await this.store.create(key(signInRef), stored(session), this.ttlMs))) {
      throw new Error('A provider session is already kept for this new sign-in.');
    }
  }

  /** Replaces it after a refresh; false when it is gone (a logout got there first). */
  replace(signInRef: string, session: ProviderSession): Promise<boolean> {
    return this.store.replace(key(signInRef), stored(session), this.ttlMs);
  }

  async load(signInRef: string): Promise<ProviderSession | undefined> {
    return readProviderSession(await this.store.get(key(signInRef)));
  }

  async drop(signInRef: string): Promise<void> {
    await this.store.destroy(key(signInRef));
  }

  /** Removes the record a stored session points to: the session ended without a request of its own (expiry). */
  async releaseFor(record: StoredRecord): Promise<void> {
    if (record.providerSession === true && typeof record.signIn === 'string') await this.drop(record.signIn);
  }
}

/** What the session record says of its provider session: every request needs it, none needs the record. */
export function providerSessionFields(session: ProviderSession | undefined): SessionFields {
  if (!session) return {};
  return { providerSession: true, ...(session.refreshAt === undefined ? {} : { refreshAt: session.refreshAt }) };
}

/** Rewrites what the session record says of its provider session: `undefined` when there is none any more. */
export function setProviderSessionFields(fields: SessionFields, session: ProviderSession | undefined): void {
  delete fields.providerSession;
  delete fields.refreshAt;
  Object.assign(fields, providerSessionFields(session));
}

function stored(session: ProviderSession): StoredRecord {
  return session.refreshAt === undefined
    ? { record: { ...session.record } }
    : { record: { ...session.record }, refreshAt: session.refreshAt };
}

/** The stored record, narrowed: a store is outside the process. The adapter's record is the adapter's to read. */
function readProviderSession(value: StoredRecord | undefined): ProviderSession | undefined {
  const record = value?.record;
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return undefined;
  const refreshAt = value?.refreshAt;
  return typeof refreshAt === 'number'
    ? { record: record as ProviderSessionRecord, refreshAt }
    : { record: record as ProviderSessionRecord };
}

function key(signInRef: string): string {
  return `provider-session:${signInRef}`;
}
