import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import type { AuditLog, AuditRequest } from '../ports/audit-log.js';
import type { DirectoryStore, StoredScimToken } from '../ports/directory-store.js';
import { randomToken } from '../random-token.js';

/**
 * Two tokens per organization at most: the one its identity provider uses, and the next
 * while the provider is switched over to it (a rotation without a moment of refusals).
 */
export const MAX_TOKENS_PER_ORGANIZATION = 2;
/** A token's use is written at most this often (the store's rule too). */
const MARK_EVERY_MS = 60_000;
/** The tokens whose last write this instance remembers before it starts over. */
const MARKS_REMEMBERED = 10_000;
/** 256 random bits: a token cannot be guessed, only handed over. */
const TOKEN_BYTES = 32;
/**
 * What every token starts with: a secret scanner (and a person reading a leaked file) can
 * tell it is Gatehouse's SCIM token and whose to revoke.
 */
export const SCIM_TOKEN_PREFIX = 'gh_scim_';

export type TokenCreation =
  | { kind: 'created'; id: string; token: string; createdAt: number }
  /** The organization holds two already: one must be revoked first. */
  | { kind: 'full' };

/** A token as the API lists it: never its value nor its hash. */
export interface TokenView {
  id: string;
  createdAt: number;
  lastUsedAt?: number;
}

/**
 * The bearer tokens each organization's identity provider presents to `/scim/v2/{organization}/`.
 * A token is shown once, in the answer that made it; the store keeps its SHA-256 only (a
 * leaked database opens nothing). Looking a token up by its hash answers for the
 * organization that holds it, and the SCIM routes compare that organization with the one
 * in the path: a token reaches its own organization only.
 */
export class ScimTokens {
  /** When this instance last wrote each token's use. */
  readonly #marked = new Map<string, number>();

  constructor(
    private readonly store: DirectoryStore,
    private readonly audit: AuditLog,
    private readonly now: () => number,
  ) {}

  async create(organization: string, actor: { id: string; request?: AuditRequest }): Promise<TokenCreation> {
    if ((await this.store.tokensOf(organization)).length >= MAX_TOKENS_PER_ORGANIZATION) return { kind: 'full' };
    const token = SCIM_TOKEN_PREFIX + randomToken(TOKEN_BYTES);
    const id = randomToken(9);
    const createdAt = this.now();
    await this.store.addToken(organization, { id, hash: tokenHash(token), createdAt });
    // Two creations racing past the count above: the later one is taken back, so the bound holds.
    const held = await this.store.tokensOf(organization);
    if (held.length > MAX_TOKENS_PER_ORGANIZATION && newest(held)?.id === id) {
      await this.store.removeToken(organization, id);
      return { kind: 'full' };
    }
    this.audit.record({
      type: 'scim_token.created',
      organization,
      actor: actor.id,
      resource: id,
      request: actor.request,
    });
    return { kind: 'created', id, token, createdAt };
  }

  async list(organization: string): Promise<TokenView[]> {
    const tokens = await this.store.tokensOf(organization);
    return tokens
      .map(({ id, createdAt, lastUsedAt }) => ({ id, createdAt, ...(lastUsedAt === undefined ? {} : { lastUsedAt }) }))
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  /** false when the organization holds no token of this id (another organization's included). */
  async revoke(organization: string, id: string, actor: { id: string; request?: AuditRequest }): Promise<boolean> {
    const removed = await this.store.removeToken(organization, id);
    if (removed) {
      this.audit.record({
        type: 'scim_token.revoked',
        organization,
        actor: actor.id,
        resource: id,
        request: actor.request,
      });
    }
    return removed;
  }

  /**
   * Remembers that a token authenticated a request now (what the portal's test and the
   * API's list show as `lastUsedAt`). Written at most once a minute per token: this
   * instance skips the store within the minute, and the store skips what another instance
   * wrote within it. A store out of reach loses the mark, never the request.
   */
  async markUsed(organization: string, tokenId: string): Promise<void> {
    const now = this.now();
    const marked = this.#marked.get(tokenId);
    if (marked !== undefined && now - marked < MARK_EVERY_MS) return;
    // Two tokens per organization: the map grows with organizations, and starts over past a bound.
    if (this.#marked.size >= MARKS_REMEMBERED) this.#marked.clear();
    this.#marked.set(tokenId, now);
    try {
      await this.store.markTokenUsed(organization, tokenId, now);
    } catch {
      this.#marked.delete(tokenId);
    }
  }

  /**
   * The organization a bearer value is a token of, or undefined: a value that is not one of
   * ours never reaches the store (no look-up to time), and one that is goes by its hash.
   */
  async organizationOf(bearer: string): Promise<{ organization: string; tokenId: string } | undefined> {
    if (!bearer.startsWith(SCIM_TOKEN_PREFIX) || bearer.length > 128) return undefined;
    const found = await this.store.tokenByHash(tokenHash(bearer));
    return found ? { organization: found.organization, tokenId: found.id } : undefined;
  }
}

/** SHA-256 of the whole token, lowercase hex: what the store keeps. */
export function tokenHash(token: string): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(token)));
}

function newest(tokens: readonly StoredScimToken[]): StoredScimToken | undefined {
  return tokens.reduce<StoredScimToken | undefined>(
    (latest, token) => (latest === undefined || token.createdAt >= latest.createdAt ? token : latest),
    undefined,
  );
}
