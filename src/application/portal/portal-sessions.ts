import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import type { SessionStore, StoredRecord } from '../ports/session-store.js';
import { randomToken } from '../random-token.js';
import type { SetupLink } from './setup-links.js';

/**
 * The setup portal's own session: one organization's IT admin setting up one connection,
 * with no sign-in to the application. What a step found is kept on it (the vendor chosen,
 * the last test sign-in's result) until the admin is done.
 */
export interface PortalSession {
  /** The link it was opened with (for the audit trail). */
  linkId: string;
  organization: string;
  connection: string;
  /** The anti-forgery token of its forms. */
  csrf: string;
  createdAt: number;
  lastSeenAt: number;
  /** The identity provider's vendor chosen at the first step (`okta`, `entra-id` ...). */
  vendor?: string;
  /** The protocol chosen with it: a connection's `Protocol` (`Saml2`, `OpenIdConnect`). */
  protocol?: string;
  /** The last test sign-in's result (portal/test-result.ts), when one completed. */
  test?: StoredRecord;
}

/** Idle for longer than this, a portal session ends: an IT admin's browser left open is not a standing door. */
export const PORTAL_IDLE_MS = 30 * 60_000;
/** However active, a portal session ends after this: a new link is asked for. */
export const PORTAL_ABSOLUTE_MS = 12 * 60 * 60_000;
/** A session seen more recently than this is not written again just to move its idle clock. */
const TOUCH_EVERY_MS = 60_000;

const keyOf = (cookieToken: string) => `portal:${encodeHexLowerCase(sha256(new TextEncoder().encode(cookieToken)))}`;

/**
 * Portal sessions in the session store (memory, or Redis shared by every instance), under
 * the SHA-256 of their cookie's token, with the idle timeout as their time to live (moved
 * at most once a minute) and an absolute limit. The cookie is the portal's own
 * (portal-cookie.ts): it never signs anyone in to the application.
 */
export class PortalSessions {
  constructor(
    private readonly store: SessionStore,
    private readonly now: () => number,
  ) {}

  /** A new session for the link just spent; the cookie's token (the answer only holds it). */
  async start(link: SetupLink): Promise<{ token: string; session: PortalSession }> {
    const token = randomToken(32);
    const at = this.now();
    const session: PortalSession = {
      linkId: link.id,
      organization: link.organization,
      connection: link.connection,
      csrf: randomToken(32),
      createdAt: at,
      lastSeenAt: at,
    };
    await this.store.create(keyOf(token), { ...session }, PORTAL_IDLE_MS);
    return { token, session };
  }

  /** The session the cookie's token names, while it is neither idle nor too old; its idle clock moved. */
  async load(token: string | undefined): Promise<PortalSession | undefined> {
    if (token === undefined || !/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
    const record = await this.store.get(keyOf(token));
    if (!isSession(record)) return undefined;
    const at = this.now();
    if (at - record.createdAt > PORTAL_ABSOLUTE_MS || at - record.lastSeenAt > PORTAL_IDLE_MS) {
      await this.store.destroy(keyOf(token));
      return undefined;
    }
    if (at - record.lastSeenAt < TOUCH_EVERY_MS) return record;
    const touched = { ...record, lastSeenAt: at };
    return (await this.store.replace(keyOf(token), { ...touched }, PORTAL_IDLE_MS)) ? touched : undefined;
  }

  /** Keeps what a step found (`vendor`, `test`) on the session. */
  async update(token: string, session: PortalSession): Promise<boolean> {
    return this.store.replace(keyOf(token), { ...session, lastSeenAt: this.now() }, PORTAL_IDLE_MS);
  }

  async end(token: string): Promise<void> {
    await this.store.destroy(keyOf(token));
  }
}

function isSession(record: StoredRecord | undefined): record is StoredRecord & PortalSession {
  return (
    record !== undefined &&
    typeof record.organization === 'string' &&
    typeof record.connection === 'string' &&
    typeof record.csrf === 'string' &&
    typeof record.createdAt === 'number' &&
    typeof record.lastSeenAt === 'number'
  );
}
