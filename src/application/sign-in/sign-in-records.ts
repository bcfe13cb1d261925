import { inject, injectable } from 'tsyringe';
import { ClaimTypes } from '../../domain/claims/claim-types.js';
import { displayName, findClaim, type Claim, type Principal } from '../../domain/claims/principal.js';
import type { ProjectTemplateSettings, ProviderKey } from '../../domain/settings/settings.js';
import { SessionStoreToken, type SessionStore, type StoredRecord } from '../ports/session-store.js';
import { randomToken } from '../random-token.js';
import { SettingsToken } from '../settings-token.js';
import { RecentlyUsed } from './recently-used.js';
import { readPrincipal, storePrincipal } from './stored-principal.js';

/** What a completed sign-in established, as every request of the session sees it. */
export interface SignIn {
  /** The reference the session keeps; the provider session of this sign-in is stored under it too. */
  ref: string;
  /** The key of the provider that signed the user in (`undefined` for a record older than the field). */
  provider: ProviderKey | undefined;
  principal: Principal;
  /** Anti-forgery synchronizer token of this sign-in (forms post it back). */
  csrf: string;
  /** What pages call the user. */
  userName: string;
  /** The connection that signed the user in, and its organization (from the claims Gatehouse set); undefined otherwise. */
  connection: { name: string; organization: string; grantsDeploymentRoles: boolean } | undefined;
}

/** Sign-ins kept decoded in each process: enough for the users active at once, bounded so memory is. */
const CACHED_SIGN_INS = 10_000;

/**
 * The principal and anti-forgery token live in their own write-once record, which the
 * session record references (`signIn`), not in the session record itself: the session
 * middleware serializes and checksums the session record twice on every request to
 * notice changes, and with the principal inside that was the largest cost of an
 * authenticated request (docs/performance.md). A sign-in record never changes after it
 * is written, so each process keeps recently used ones decoded and cannot serve a stale
 * one. The session record is the one source of truth for "signed in": it is read from the
 * store on every request and can never be written back once removed, so a logout on any
 * instance takes effect on every instance at the session's next request.
 */
@injectable()
export class SignInRecords {
  private readonly decoded = new RecentlyUsed<string, SignIn>(CACHED_SIGN_INS);
  /** As long as a session can live: its absolute lifetime from sign-in. */
  private readonly ttlMs: number;

  constructor(
    @inject(SessionStoreToken) private readonly store: SessionStore,
    @inject(SettingsToken) settings: ProjectTemplateSettings,
  ) {
    this.ttlMs = settings.Session.AbsoluteLifetime * 1000;
  }

  /** Writes the record of a new sign-in by `provider`: a fresh reference, the principal and a fresh anti-forgery token. */
  async create(principal: Principal, provider: ProviderKey): Promise<SignIn> {
    const ref = newRecordRef();
    const csrf = randomToken(32);
    if (!(await this.store.create(key(ref), { provider, principal: storePrincipal(principal), csrf }, this.ttlMs))) {
      throw new Error('A new sign-in reference collided with an existing one.');
    }
    const signIn = frozen(ref, provider, principal, csrf);
    this.decoded.set(ref, signIn);
    return signIn;
  }

  /**
   * A new record of the same sign-in with another principal (its directory groups changed
   * its organization roles): a fresh reference, the same provider and anti-forgery token, so
   * the pages open in the browser still post. Records are write-once (every process keeps
   * them decoded), so a change is a new record the session is moved onto, never an edit.
   */
  async withPrincipal(signIn: SignIn, principal: Principal): Promise<SignIn> {
    const ref = newRecordRef();
    const stored = { provider: signIn.provider, principal: storePrincipal(principal), csrf: signIn.csrf };
    if (!(await this.store.create(key(ref), stored, this.ttlMs))) {
      throw new Error('A new sign-in reference collided with an existing one.');
    }
    const changed = frozen(ref, signIn.provider, principal, signIn.csrf);
    this.decoded.set(ref, changed);
    return changed;
  }

  /** The sign-in a session points to, or undefined when it points to none or its record is gone. */
  async read(ref: string | undefined): Promise<SignIn | undefined> {
    if (typeof ref !== 'string') return undefined;
    const cached = this.decoded.get(ref);
    if (cached) return cached;
    const signIn = readSignIn(ref, await this.store.get(key(ref)));
    if (signIn) this.decoded.set(ref, signIn);
    return signIn;
  }

  /** Removes a sign-in record (logout, a new sign-in replacing it, the session's expiry). */
  async release(ref: string | undefined): Promise<void> {
    if (typeof ref !== 'string') return;
    this.decoded.delete(ref);
    await this.store.destroy(key(ref));
  }

  /** Removes the record a stored session points to: the session ended without a request of its own (expiry). */
  async releaseFor(record: StoredRecord): Promise<void> {
    if (typeof record.signIn === 'string') await this.release(record.signIn);
  }
}

/**
 * 128 random bits: a reference is never accepted from a client (only the session record
 * holds it), so it needs to be unique, not secret; shorter than a token, because every
 * idle session keeps it twice (in its record and as the key of this one).
 */
function newRecordRef(): string {
  return randomToken(16);
}

function key(ref: string): string {
  return `signin:${ref}`;
}

/** Reads a stored sign-in back, field by field: it comes from a store outside the process. */
function readSignIn(ref: string, record: StoredRecord | undefined): SignIn | undefined {
  if (!record || typeof record.csrf !== 'string') return undefined;
  const principal = readPrincipal(record.principal);
  const provider = typeof record.provider === 'string' ? record.provider : undefined;
  return principal ? frozen(ref, provider, principal, record.csrf) : undefined;
}

/** Shared by every request of the session: frozen, so no request can change what another sees. */
function frozen(ref: string, provider: ProviderKey | undefined, principal: Principal, csrf: string): SignIn {
  const claims = Object.freeze(principal.claims.map((claim): Claim => Object.freeze({ ...claim })));
  const copy: Principal = Object.freeze({ scheme: principal.scheme, claims });
  const name = findClaim(copy, ClaimTypes.Connection);
  const organization = findClaim(copy, ClaimTypes.Organization);
  const grantsDeploymentRoles = findClaim(copy, ClaimTypes.GrantsDeploymentRoles) === 'true';
  const connection =
    name !== undefined && organization !== undefined
      ? Object.freeze({ name, organization, grantsDeploymentRoles })
      : undefined;
  return Object.freeze({
    ref,
    provider,
    principal: copy,
    csrf,
    userName: displayName(copy) ?? 'signed-in user',
    connection,
  });
}
