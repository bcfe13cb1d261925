import { encodeBase64urlNoPadding } from '@oslojs/encoding';
import type { SessionStore, StoredRecord } from '../../../application/ports/session-store.js';
import { displayName, type Claim, type Principal } from '../../../domain/claims/principal.js';
import { newAntiForgeryToken } from '../anti-forgery.js';
import { RecentlyUsed } from './recently-used.js';
import { readPrincipal, storePrincipal, type SessionFields } from './session-state.js';

/** What a completed sign-in established, as every request of the session sees it. */
export interface SignIn {
  /** The reference the session keeps; the saved tokens of this sign-in are stored under it too. */
  ref: string;
  principal: Principal;
  /** Anti-forgery synchronizer token of this sign-in (forms post it back). */
  csrf: string;
  /** What pages call the user. */
  userName: string;
}

/** Sign-ins kept decoded in each process: enough for the users active at once, bounded so memory is. */
const CACHED_SIGN_INS = 10_000;

/**
 * The principal and anti-forgery token live in their own write-once record, which the
 * session references (`signIn`), not in the session record itself. koa-session
 * serializes and checksums the whole session twice on every request to notice changes
 * (npm run bench: with the principal inside, that was the largest cost of an
 * authenticated request and grew with every claim). A sign-in record never changes
 * after it is written, so each process keeps recently used ones decoded and cannot
 * serve a stale one; logout still takes effect everywhere at once, because the small
 * session record that points here is read from the store on every request.
 */
export class SignInRecords {
  private readonly decoded = new RecentlyUsed<string, SignIn>(CACHED_SIGN_INS);

  constructor(
    private readonly store: SessionStore,
    /** As long as a session can live (its absolute lifetime from sign-in). */
    private readonly ttlMs: number,
  ) {}

  /** Writes the record of a new sign-in and points the session at it (dropping an earlier one). */
  async create(session: SessionFields, principal: Principal): Promise<SignIn> {
    await this.drop(session);
    const ref = newRecordRef();
    const csrf = newAntiForgeryToken();
    await this.store.set(key(ref), { principal: storePrincipal(principal), csrf }, this.ttlMs);
    session.signIn = ref;
    const signIn = frozen(ref, principal, csrf);
    this.decoded.set(ref, signIn);
    return signIn;
  }

  /** The session's sign-in, or undefined when it has none or its record is gone. */
  async read(session: SessionFields): Promise<SignIn | undefined> {
    const ref = session.signIn;
    if (typeof ref !== 'string') return undefined;
    const cached = this.decoded.get(ref);
    if (cached) return cached;
    const signIn = readSignIn(ref, await this.store.get(key(ref)));
    if (signIn) this.decoded.set(ref, signIn);
    return signIn;
  }

  /** Removes the session's sign-in record (logout, or a new sign-in replacing it). */
  async drop(session: SessionFields): Promise<void> {
    const ref = session.signIn;
    if (typeof ref === 'string') await this.release(ref);
    delete session.signIn;
  }

  /** Removes the record a stored session points to: the session ended without a request of its own (expiry). */
  async releaseFor(record: StoredRecord): Promise<void> {
    if (typeof record.signIn === 'string') await this.release(record.signIn);
  }

  private async release(ref: string): Promise<void> {
    this.decoded.delete(ref);
    await this.store.destroy(key(ref));
  }
}

/**
 * 128 random bits: a reference is never accepted from a client (only the session record
 * holds it), so it needs to be unique, not secret; shorter than a token, because every
 * idle session keeps it twice (in its record and as the key of this one).
 */
function newRecordRef(): string {
  return encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(16)));
}

function key(ref: string): string {
  return `signin:${ref}`;
}

/** Reads a stored sign-in back, field by field: it comes from a store outside the process. */
function readSignIn(ref: string, record: StoredRecord | undefined): SignIn | undefined {
  if (!record || typeof record.csrf !== 'string') return undefined;
  const principal = readPrincipal(record.principal);
  return principal ? frozen(ref, principal, record.csrf) : undefined;
}

/** Shared by every request of the session: frozen, so no request can change what another sees. */
function frozen(ref: string, principal: Principal, csrf: string): SignIn {
  const claims = Object.freeze(principal.claims.map((claim): Claim => Object.freeze({ ...claim })));
  const copy: Principal = Object.freeze({ scheme: principal.scheme, claims });
  return Object.freeze({ ref, principal: copy, csrf, userName: displayName(copy) ?? 'signed-in user' });
}
