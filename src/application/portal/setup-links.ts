import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import type { AuditLog, AuditRequest } from '../ports/audit-log.js';
import type { SessionStore } from '../ports/session-store.js';
import { randomToken } from '../random-token.js';

/** One organization's invitation to set up its single sign-on, as stored: never its token. */
export interface SetupLink {
  id: string;
  organization: string;
  /** The connection the portal sets up (its name). */
  connection: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  /** Who made it (`staff:<hash>`, `api-key:<id>`), as the audit trail names it. */
  createdBy: string;
}

/** The most a link may live, and the default (docs/connections.md, Setup links). */
export const SETUP_LINK_MAX_DAYS = 30;
export const SETUP_LINK_DEFAULT_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;
/** 256 random bits: a link cannot be guessed, only handed over. */
const TOKEN_BYTES = 32;

const linkKey = (token: string) => `setup-link:${hashOf(token)}`;
const idKey = (id: string) => `setup-link-id:${id}`;

/**
 * Setup links: a one-time URL that lets a customer's IT admin set up their organization's
 * connection without an account here. The token is 256 random bits handed out once, in
 * the answer to the staff member or job that made the link; the store keeps only its
 * SHA-256 (a leaked store, or a log, opens nothing). Opening the link takes the record in
 * one atomic step (`SessionStore.take`): the link is spent whichever instance served it,
 * and found again later in a browser's history it is worthless. Records live in the session
 * store (memory, or Redis shared by every instance) with the link's own lifetime, so an
 * expired link is gone by itself; a memory store forgets its links at a restart
 * (docs/connections.md says so: production runs on Redis).
 */
export class SetupLinks {
  constructor(
    private readonly store: SessionStore,
    private readonly audit: AuditLog,
    private readonly now: () => number,
  ) {}

  /** A new link for `organization`'s `connection`, valid `days` days (1 to 30); the token is in the answer only. */
  async create(
    organization: string,
    connection: string,
    days: number,
    actor: { id: string; request?: AuditRequest },
  ): Promise<{ link: SetupLink; token: string }> {
    const token = randomToken(TOKEN_BYTES);
    const id = randomToken(9);
    const link: SetupLink = {
      id,
      organization,
      connection,
      expiresAt: this.now() + days * DAY_MS,
      createdBy: actor.id,
    };
    const ttl = days * DAY_MS;
    await this.store.create(idKey(id), { hash: hashOf(token), organization }, ttl);
    await this.store.create(linkKey(token), { ...link }, ttl);
    this.audit.record({
      type: 'setup_link.created',
      request: actor.request,
      actor: actor.id,
      organization,
      connection,
      link: id,
    });
    return { link, token };
  }

  /** The link `token` names, without spending it: the link's own page says whose it is before the admin goes on. */
  async peek(token: string): Promise<SetupLink | undefined> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
    const record = await this.store.get(linkKey(token));
    return isLink(record) && record.expiresAt > this.now() ? record : undefined;
  }

  /** Spends the link `token` names: its record, once; undefined when unknown, spent, revoked or expired. */
  async open(token: string, request?: AuditRequest): Promise<SetupLink | undefined> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
    const record = await this.store.take(linkKey(token));
    if (!isLink(record) || record.expiresAt <= this.now()) return undefined;
    await this.store.destroy(idKey(record.id));
    this.audit.record({
      type: 'setup_link.used',
      request,
      organization: record.organization,
      connection: record.connection,
      link: record.id,
    });
    return record;
  }

  /** Revokes a link of `organization` by its id: false when there is none (or it is another organization's). */
  async revoke(organization: string, id: string, actor: { id: string; request?: AuditRequest }): Promise<boolean> {
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(id)) return false;
    const record = await this.store.get(idKey(id));
    if (!record || record.organization !== organization || typeof record.hash !== 'string') return false;
    await this.store.destroy(`setup-link:${record.hash}`);
    await this.store.destroy(idKey(id));
    this.audit.record({
      type: 'setup_link.revoked',
      request: actor.request,
      actor: actor.id,
      organization,
      link: id,
    });
    return true;
  }
}

function hashOf(token: string): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(token)));
}

function isLink(record: unknown): record is SetupLink {
  if (typeof record !== 'object' || record === null) return false;
  const link = record as Record<string, unknown>;
  return (
    typeof link.id === 'string' &&
    typeof link.organization === 'string' &&
    typeof link.connection === 'string' &&
    typeof link.expiresAt === 'number'
  );
}
