import type { Connection } from './connection.js';
import { DomainOwners } from './domain-owners.js';

/** Why a connection cannot join the others: what it would share, and with which connection. */
export interface ConnectionConflict {
  /** `Domains:<index>`, `Authority` / `IdpEntityId` / `MetadataUrl`, or the name itself (`''`). */
  setting: string;
  message: string;
}

/**
 * The connections in force, answering the three questions the house asks of them fast,
 * and nothing else: by name (a challenge, a callback path), by e-mail domain (discovery),
 * by identity provider (one connection each). A connection joins only when it shares no
 * name (nor a built-in provider's name or scheme), no domain and no identity provider
 * with another: otherwise one organization's identity provider could sign in, or be
 * offered to, another organization's people.
 */
export class ConnectionIndex {
  readonly #byId = new Map<string, Connection>();
  readonly #byIssuer = new Map<string, Connection>();
  /** Each connection's issuer as compared, by its id: parsing a URL is the dearest part of adding one. */
  readonly #issuerKeyOfId = new Map<string, string>();
  /** The last connection asked about and its issuer's key: `put` follows `conflicts` for the same one. */
  #asked: { connection: Connection; key: string } | undefined;
  readonly #domains = new DomainOwners<Connection>();

  /** @param reservedNames the built-in providers' keys and schemes, and `Cookies`, in lower case. */
  constructor(private readonly reservedNames: ReadonlySet<string>) {}

  get size(): number {
    return this.#byId.size;
  }

  byName(name: string): Connection | undefined {
    return this.#byId.get(name.toLowerCase());
  }

  /** The connection holding a normalized e-mail domain. */
  byDomain(domain: string): Connection | undefined {
    return this.#domains.ownerOf(domain);
  }

  /** The connection other than `exceptId` holding a domain that overlaps `pattern` (`*.example.com` and `a.example.com` do). */
  overlapping(pattern: string, exceptId: string): Connection | undefined {
    return this.#domains.overlapping(pattern, (held) => held.id === exceptId);
  }

  byIssuer(issuer: string): Connection | undefined {
    return this.#byIssuer.get(issuerKey(issuer));
  }

  #issuerKeyOf(connection: Connection): string {
    if (this.#asked?.connection !== connection) this.#asked = { connection, key: issuerKey(connection.issuer) };
    return this.#asked.key;
  }

  all(): IterableIterator<Connection> {
    return this.#byId.values();
  }

  /**
   * What stops `candidate` from joining, ignoring the connection it replaces (same name):
   * empty when it may.
   */
  conflicts(candidate: Connection): ConnectionConflict[] {
    const conflicts: ConnectionConflict[] = [];
    if (this.reservedNames.has(candidate.id)) {
      conflicts.push({ setting: '', message: 'is named like a built-in provider or its scheme: choose another name' });
    }
    const replaced = this.#byId.get(candidate.id);
    if (replaced && replaced.origin !== candidate.origin) {
      conflicts.push({
        setting: '',
        message: `is the name of another connection (${replaced.origin}), letter case aside`,
      });
    }
    const sameIssuer = candidate.issuer === '' ? undefined : this.#byIssuer.get(this.#issuerKeyOf(candidate));
    if (sameIssuer && sameIssuer.id !== candidate.id) {
      conflicts.push({
        setting: candidate.issuerSetting,
        message: `names the identity provider of the connection ${sameIssuer.name}: one connection per identity provider`,
      });
    }
    candidate.domains.forEach((pattern, index) => {
      // Overlap is ownership too: `*.example.com` and `team.example.com` held by two
      // organizations would let the first's provider be offered the second's people.
      const owner = this.#domains.overlapping(pattern, (held) => held.id === candidate.id);
      if (owner) {
        conflicts.push({
          setting: `Domains:${index}`,
          message: `is held by the connection ${owner.name} already: a domain belongs to one organization`,
        });
      }
    });
    return conflicts;
  }

  /** Adds or replaces (by name) a connection `conflicts` accepted. */
  put(connection: Connection): void {
    this.remove(connection.id);
    if (connection.issuer !== '') {
      const key = this.#issuerKeyOf(connection);
      this.#issuerKeyOfId.set(connection.id, key);
      this.#byIssuer.set(key, connection);
    }
    this.#byId.set(connection.id, connection);
    this.#asked = undefined;
    for (const pattern of connection.domains) this.#domains.claim(pattern, connection);
  }

  remove(name: string): Connection | undefined {
    const id = name.toLowerCase();
    const existing = this.#byId.get(id);
    if (!existing) return undefined;
    this.#byId.delete(id);
    const key = this.#issuerKeyOfId.get(id);
    this.#issuerKeyOfId.delete(id);
    if (key !== undefined && this.#byIssuer.get(key) === existing) this.#byIssuer.delete(key);
    for (const pattern of existing.domains) this.#domains.release(pattern);
    return existing;
  }
}

/** Issuers compare without a trailing slash and case-insensitively in scheme and host (URLs) or whole (URNs). */
export function issuerKey(issuer: string): string {
  const trimmed = issuer.trim().replace(/\/+$/, '');
  try {
    return new URL(trimmed).href.replace(/\/+$/, '');
  } catch {
    return trimmed;
  }
}
