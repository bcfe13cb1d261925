import type { ConnectionDeclaration } from '../../domain/connections/connection.js';
import type { ConnectionDirectory } from './connection-directory.js';

/**
 * One e-mail domain of a connection the administration API manages, with its DNS proof.
 * `verifiedAt` absent: the domain routes nobody (discovery skips it, the domain guard
 * refuses `idp.domain_not_verified`) until a look-up finds `token`'s TXT record.
 */
export interface DomainProof {
  /** The normalized pattern, as connections hold it (`example.com`, `*.example.com`). */
  domain: string;
  /** The random token of its TXT record: ours, 128 bits in base64url, never a customer's text. */
  token: string;
  /** When a look-up first found the record (milliseconds since the epoch). */
  verifiedAt?: number;
  /** The last look-up, whatever it found: the re-check schedule's clock. */
  checkedAt?: number;
  /** Re-checks in a row that missed the record since one found it. */
  misses: number;
}

/**
 * A connection as the catalog stores it: the connection file's keys (one shape for a file,
 * a configuration section and the API), with every secret key's value sealed (SealedSecrets),
 * never in the clear; the proofs of its domains; and a version, 1 when created and one more
 * at every write, so that a write based on an old version is refused (optimistic concurrency).
 */
export interface CatalogEntry {
  /** As written (its letter case kept); names compare case-insensitively. */
  name: string;
  /** The connection's keys as the API took them (`Protocol`, `Organization`, `Domains` ...), secrets sealed. */
  keys: Readonly<Record<string, unknown>>;
  /** One proof per entry of `keys.Domains`, in no particular order. */
  domains: readonly DomainProof[];
  version: number;
  /** The last write (milliseconds since the epoch). */
  updatedAt: number;
}

/** What a write stores: the version and time are the catalog's. */
export type CatalogWrite = Pick<CatalogEntry, 'name' | 'keys' | 'domains'>;

/**
 * The version a write expects the entry to be at: `undefined` writes whatever is there
 * (last writer wins), `0` only when no entry has the name (create), `n` only when the
 * entry is at version n.
 */
export type ExpectedVersion = number | undefined;

export type PutOutcome =
  | { kind: 'written'; entry: CatalogEntry; created: boolean }
  /** The entry is not at the expected version (or exists, for 0): nothing was written. */
  | { kind: 'conflict'; currentVersion: number | undefined };

export type RemoveOutcome = { kind: 'removed' } | { kind: 'absent' } | { kind: 'conflict'; currentVersion: number };

export interface CatalogQuery {
  /** Only the entries of this organization (`keys.Organization`, exact). */
  organization?: string;
  /** Only the entries whose `keys.Domains` holds this normalized pattern. */
  domain?: string;
  /** At most this many (1 to 100). */
  limit: number;
  /** The page after this name (in lower case): the previous page's `next`. */
  after?: string;
}

export interface CatalogPage {
  /** In the order of their names in lower case. */
  entries: CatalogEntry[];
  /** The `after` of the next page; absent on the last. */
  next?: string;
}

/** Another entry holding a domain: the 409 across organizations is decided from these. */
export interface DomainClaim {
  name: string;
  organization: string;
  verified: boolean;
}

/**
 * A store the administration API writes connections into: the folder (one `<Name>.json`
 * file each, written atomically) or PostgreSQL. It is also a ConnectionDirectory: what the
 * registry reads at start and is told of later, each entry turned into a declaration that
 * goes through the same connection rules as a file's, so an invalid one never replaces a
 * working one. A store only keeps entries: every rule (the keys, the domains' owners, the
 * versions expected) is decided above it, but the version check itself, which must be
 * atomic with the write.
 */
export interface ConnectionCatalog extends ConnectionDirectory {
  /** The origin of the entry's declaration (`database:acme`, the file's path): how the registry knows it came from here. */
  originOf(name: string): string;
  get(name: string): Promise<CatalogEntry | undefined>;
  list(query: CatalogQuery): Promise<CatalogPage>;
  /** Creates or replaces `write.name` when it is at `expected`; `at` is the write's time. */
  put(write: CatalogWrite, expected: ExpectedVersion, at: number): Promise<PutOutcome>;
  remove(name: string, expected: ExpectedVersion): Promise<RemoveOutcome>;
  /** The entries other than `exceptName` whose `keys.Domains` holds `domain` (a normalized pattern). */
  claimsOf(domain: string, exceptName: string): Promise<DomainClaim[]>;
  /**
   * Entries with a verified domain whose `checkedAt` is before `before` (or absent), at most
   * `limit`: the daily re-check's work.
   */
  dueForRecheck(before: number, limit: number): Promise<CatalogEntry[]>;
  /** `up`, or `degraded` while the store cannot be reached (the registry keeps what it holds). */
  health(): 'up' | 'degraded';
  /** Stops watching and closes what the store holds open. */
  close(): Promise<void>;
}

/** Marks a CatalogUnavailable wherever its class was loaded from (isCatalogUnavailable). */
const UNAVAILABLE = Symbol.for('gatehouse.catalog-unavailable');

/** Thrown by a catalog that cannot be reached now: the API answers 503, and nothing was written. */
export class CatalogUnavailable extends Error {
  readonly [UNAVAILABLE] = true;

  constructor() {
    super('the connection catalog cannot be reached now');
    this.name = 'CatalogUnavailable';
  }
}

/**
 * Whether `error` is a CatalogUnavailable. Not `instanceof`: a store loaded on demand (the
 * PostgreSQL adapter is imported only by an instance with a database) may get its own copy
 * of this module under a loader (tsx) that keys modules by more than their path, and its
 * class is then another class of the same name.
 */
export function isCatalogUnavailable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[UNAVAILABLE] === true;
}

/**
 * Turns a stored entry into the declaration the registry reads: its secrets opened, its
 * domains' proofs attached. `origin` names the entry in problems (`database:acme`, a path).
 * Given to a catalog by the composition root; a store never opens a secret itself.
 */
export type DeclareEntry = (entry: CatalogEntry, origin: string) => Promise<ConnectionDeclaration>;

export const ConnectionCatalogToken = Symbol('ConnectionCatalog');
