import type { Connection, ConnectionDeclaration } from '../../domain/connections/connection.js';
import { checkTxtAnswer, type RecordPrefixes } from '../../domain/connections/domain-verification.js';
import { normalizeDomainPattern } from '../../domain/connections/email-domain.js';
import { isGatehouseError } from '../../domain/errors.js';
import type { ConnectionRegistry } from '../connections/connection-registry.js';
import type { AuditLog, AuditRequest } from '../ports/audit-log.js';
import {
  type CatalogEntry,
  type CatalogWrite,
  type ConnectionCatalog,
  type DeclareEntry,
  type ExpectedVersion,
} from '../ports/connection-catalog.js';
import type { SecretSealing } from '../ports/secret-sealing.js';
import type { TxtRecords } from '../ports/txt-records.js';
import { randomToken } from '../random-token.js';
import { AdministrationProblem } from './administration-problem.js';
import {
  domainNotFound,
  keyProblems,
  notFound,
  operatorOwned,
  refuseFileKeys,
  refuseProblems,
  unavailableAs503,
  versionConflict,
} from './administration-refusals.js';
import { added, changedKeys, normalizedDomains } from './catalog-keys.js';
import { entryView, operatorView, domainView, type ConnectionView, type DomainView } from './connection-views.js';
import { isWildcard, proofAfterCheck, proofsAfterWrite, recordFor, TOKEN_BYTES } from './domain-proofs.js';

/** Who asked: signed-in staff (by the hash of their subject) or a provisioning job's API key (by its id). */
export interface Actor {
  /** `staff:<hash>` or `api-key:<id>`, as the audit trail writes it. */
  id: string;
  request?: AuditRequest;
}

/** The pre-flight of a connection about to be stored: [] when its provider answers as declared. */
export interface Preflight {
  check(connection: Connection): Promise<ReadonlyArray<{ key: string; reason: string }>>;
}

export interface ManageConnectionsParts {
  catalog: ConnectionCatalog;
  registry: ConnectionRegistry;
  declare: DeclareEntry;
  /** Types a body as a connection file's keys (canonical names, typed values) with the start's reading problems. */
  readKeys(name: string, body: Record<string, unknown>, origin: string): Promise<ConnectionDeclaration>;
  secretKeys: readonly string[];
  /** Absent: no `Administration:EncryptionKeys`, and a secret is refused rather than stored in the clear. */
  sealing?: SecretSealing;
  preflight: Preflight;
  txtRecords: TxtRecords;
  audit: AuditLog;
  now: () => number;
  prefixes: RecordPrefixes;
  missesBeforeUnverified: number;
}

/** A body's keys that are the request's, not the connection's. */
const META_KEYS = new Set(['version', 'name']);

/**
 * The administration API's use cases over the connection catalog. Every write is checked
 * as the registry will check it (the same rules, the conflicts with the connections in
 * force) and pre-flighted before it is stored, stored with its version expected, then put
 * in force on this instance at once (the others hear of it from the catalog). The
 * operator's connections (the configuration's, hand-written files) are listed and read,
 * never changed. A secret is sealed before it is stored and never shown again; an omitted
 * secret keeps its stored value, and `""` clears it.
 */
export class ManageConnections {
  constructor(private readonly parts: ManageConnectionsParts) {}

  async list(query: {
    organization?: string;
    domain?: string;
    limit: number;
    after?: string;
  }): Promise<{ connections: ConnectionView[]; next?: string }> {
    const { catalog, registry } = this.parts;
    const domain = query.domain === undefined ? undefined : (normalizeDomainPattern(query.domain) ?? query.domain);
    const page = await unavailableAs503(() => catalog.list({ ...query, domain, limit: query.limit + 1 }));
    const operators = [...registry.all()]
      .filter((connection) => !connection.managed)
      .filter((connection) => query.after === undefined || connection.id > query.after)
      .filter((connection) => query.organization === undefined || connection.organization === query.organization)
      .filter((connection) => domain === undefined || connection.domains.includes(domain))
      .map((connection) => ({ id: connection.id, view: () => operatorView(connection, this.parts.secretKeys) }));
    const stored = page.entries.map((entry) => ({ id: entry.name.toLowerCase(), view: () => this.#view(entry) }));
    // Both sources are in the order of their names: merged, a page ends at the limit, and
    // `next` is the last name shown (the catalog's own page was asked one longer to know).
    const merged = [...operators, ...stored].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const shown = merged.slice(0, query.limit);
    const more = merged.length > query.limit || page.next !== undefined;
    const last = shown.at(-1);
    return { connections: shown.map((item) => item.view()), ...(more && last ? { next: last.id } : {}) };
  }

  async get(name: string): Promise<ConnectionView> {
    const entry = await unavailableAs503(() => this.parts.catalog.get(name));
    if (entry) return this.#view(entry);
    const connection = this.parts.registry.byName(name);
    if (connection && !connection.managed) return operatorView(connection, this.parts.secretKeys);
    throw notFound(name);
  }

  /** Creates or replaces `name` with `body` (the connection file's keys): the view, and whether it was created. */
  async put(
    requested: string,
    body: Record<string, unknown>,
    expected: ExpectedVersion,
    actor: Actor,
  ): Promise<{ view: ConnectionView; created: boolean }> {
    const { write, current } = await this.prepare(requested, body);
    return this.#commit(write, current, expected, actor);
  }

  /**
   * Everything `put` does before it stores: the keys read, the rules and the conflicts
   * checked, the domains' proofs carried over, the pre-flight run, the secrets sealed. The
   * setup portal keeps such a write as a draft of an activated connection, tests it, and
   * stores it with `putPrepared` once its admin activates it.
   */
  async prepare(
    requested: string,
    body: Record<string, unknown>,
  ): Promise<{ write: CatalogWrite; current: CatalogEntry | undefined }> {
    const current = await this.#writable(requested);
    // A stored connection keeps the letter case it was created with: one file, one origin.
    const name = current?.name ?? requested;
    const origin = this.parts.catalog.originOf(name);
    const given = Object.fromEntries(Object.entries(body).filter(([key]) => !META_KEYS.has(key.toLowerCase())));
    refuseFileKeys(given);
    const read = await this.parts.readKeys(name, given, origin);
    refuseProblems(read.problems, 'connection.invalid', 'The connection has keys that cannot be read.');
    const keys = this.#sealed(name, read.section, current);
    const domains = normalizedDomains(keys.Domains);
    keys.Domains = domains;
    const write: CatalogWrite = {
      name,
      keys,
      domains: proofsAfterWrite(domains, current?.domains ?? [], () => randomToken(TOKEN_BYTES)),
    };
    const connection = await this.#checked(write, current, origin);
    await this.#refuseTakenDomains(name, connection?.organization ?? String(keys.Organization ?? ''), domains);
    if (connection && keys.Enabled !== false) await this.#preflight(connection);
    return { write, current };
  }

  /**
   * Stores a write `prepare` made earlier (its pre-flight passed then), at the version it was
   * prepared on: the rules and the domains' owners are checked again (others may have
   * changed meanwhile), the proofs as they are now.
   */
  async putPrepared(write: CatalogWrite, expected: ExpectedVersion, actor: Actor): Promise<ConnectionView> {
    const current = await this.#writable(write.name);
    const domains = normalizedDomains(write.keys.Domains);
    const now = {
      ...write,
      domains: proofsAfterWrite(domains, current?.domains ?? [], () => randomToken(TOKEN_BYTES)),
    };
    const connection = await this.#checked(now, current, this.parts.catalog.originOf(write.name));
    await this.#refuseTakenDomains(
      write.name,
      connection?.organization ?? String(write.keys.Organization ?? ''),
      domains,
    );
    return (await this.#commit(now, current, expected, actor)).view;
  }

  async #commit(
    write: CatalogWrite,
    current: CatalogEntry | undefined,
    expected: ExpectedVersion,
    actor: Actor,
  ): Promise<{ view: ConnectionView; created: boolean }> {
    const stored = await this.#store(write, expected ?? current?.version ?? 0, actor);
    const created = current === undefined;
    this.parts.audit.record({
      type: created ? 'connection.created' : 'connection.changed',
      ...this.#about(stored, actor),
      fields: changedKeys(current?.keys ?? {}, stored.keys),
    });
    for (const domain of added(current, stored))
      this.parts.audit.record({ type: 'domain.added', ...this.#about(stored, actor), domain });
    for (const domain of added(stored, current))
      this.parts.audit.record({ type: 'domain.removed', ...this.#about(stored, actor), domain });
    return { view: this.#view(stored), created };
  }

  /** Turns a connection on or off (`Enabled`), keeping everything else. */
  async setEnabled(name: string, enabled: boolean, expected: ExpectedVersion, actor: Actor): Promise<ConnectionView> {
    const current = await this.#writable(name);
    if (!current) throw notFound(name);
    const write = { name: current.name, keys: { ...current.keys, Enabled: enabled }, domains: current.domains };
    if (enabled) {
      const connection = await this.#checked(write, current, this.parts.catalog.originOf(name));
      if (connection) await this.#preflight(connection);
    }
    const stored = await this.#store(write, expected ?? current.version, actor);
    this.parts.audit.record({ type: 'connection.changed', ...this.#about(stored, actor), fields: ['Enabled'] });
    return this.#view(stored);
  }

  async remove(name: string, expected: ExpectedVersion, actor: Actor): Promise<void> {
    const current = await this.#writable(name);
    if (!current) throw notFound(name);
    const outcome = await unavailableAs503(() => this.parts.catalog.remove(name, expected ?? current.version));
    if (outcome.kind === 'conflict') throw versionConflict(outcome.currentVersion);
    if (outcome.kind === 'absent') throw notFound(name);
    this.parts.registry.apply([{ kind: 'removed', name: current.name, origin: this.parts.catalog.originOf(name) }]);
    this.parts.audit.record({ type: 'connection.removed', ...this.#about(current, actor) });
  }

  async domains(name: string): Promise<DomainView[]> {
    return (await this.get(name)).domains;
  }

  /**
   * Looks the domain's TXT record up and, found, marks the domain verified: it routes from
   * now on. Missing: 422 with the record to publish; the DNS not answering: 503. Another
   * connection routing an overlapping domain: 409, whatever the record says.
   */
  async verifyDomain(name: string, domain: string, expected: ExpectedVersion, actor: Actor): Promise<DomainView> {
    const current = await this.#writable(name);
    if (!current) throw notFound(name);
    if (expected !== undefined && expected !== current.version) throw versionConflict(current.version);
    const pattern = normalizeDomainPattern(domain) ?? domain;
    if (!normalizedDomains(current.keys.Domains).includes(pattern)) throw domainNotFound(pattern);
    const proof = current.domains.find((candidate) => candidate.domain === pattern);
    if (!proof && !isWildcard(pattern)) return this.#firstRecord(current, pattern, actor);
    if (!proof) throw domainNotFound(pattern);
    if (isWildcard(pattern)) {
      throw new AdministrationProblem(
        'invalid',
        'domain.wildcard',
        `${pattern} is proved by the record of ${pattern.slice(2)}: verify that domain (add it to the connection if it is not there).`,
      );
    }
    await this.#refuseTakenDomains(name, String(current.keys.Organization ?? ''), [pattern]);
    const record = recordFor(pattern, current.domains, this.parts.prefixes);
    if (!record) throw domainNotFound(pattern);
    const outcome = checkTxtAnswer(await this.parts.txtRecords.lookup(record.name), record.value);
    const publish = { record: { type: 'TXT', name: record.name, value: record.value } };
    if (outcome === 'unknown') {
      throw new AdministrationProblem(
        'unavailable',
        'domain.lookup_failed',
        `The DNS did not answer for ${record.name}; nothing changed. Try again in a moment.`,
        [],
        publish,
      );
    }
    if (outcome === 'missing') {
      throw new AdministrationProblem(
        'invalid',
        'domain.record_missing',
        `No TXT record at ${record.name} holds the value this domain is proved by. Publish it, wait for the DNS to serve it, and try again.`,
        [],
        publish,
      );
    }
    const at = this.parts.now();
    const checked = proofAfterCheck(proof, outcome, at, this.parts.missesBeforeUnverified);
    const domains = current.domains.map((candidate) => (candidate.domain === pattern ? checked.proof : candidate));
    const stored = await this.#store({ name: current.name, keys: current.keys, domains }, current.version, actor);
    if (proof.verifiedAt === undefined)
      this.parts.audit.record({ type: 'domain.verified', ...this.#about(stored, actor), domain: pattern });
    return domainView(pattern, stored, this.parts.prefixes);
  }

  async removeDomain(name: string, domain: string, expected: ExpectedVersion, actor: Actor): Promise<void> {
    const current = await this.#writable(name);
    if (!current) throw notFound(name);
    if (expected !== undefined && expected !== current.version) throw versionConflict(current.version);
    const pattern = normalizeDomainPattern(domain) ?? domain;
    const domains = normalizedDomains(current.keys.Domains);
    if (!domains.includes(pattern)) throw domainNotFound(pattern);
    const remaining = domains.filter((candidate) => candidate !== pattern);
    if (remaining.length === 0) {
      throw new AdministrationProblem(
        'invalid',
        'domain.last',
        'A connection keeps at least one domain: remove the connection instead, or add another domain first.',
      );
    }
    const write = {
      name: current.name,
      keys: { ...current.keys, Domains: remaining },
      domains: current.domains.filter((proof) => proof.domain !== pattern),
    };
    const stored = await this.#store(write, current.version, actor);
    this.parts.audit.record({ type: 'domain.removed', ...this.#about(stored, actor), domain: pattern });
  }

  /**
   * A domain in the connection's keys without a token (added by hand to an API-written
   * file): it gets one now, stored, and the answer is the record to publish (422), as for
   * any domain whose record is not found yet.
   */
  async #firstRecord(current: CatalogEntry, pattern: string, actor: Actor): Promise<never> {
    const proof = { domain: pattern, token: randomToken(TOKEN_BYTES), misses: 0 };
    const write = { name: current.name, keys: current.keys, domains: [...current.domains, proof] };
    const stored = await this.#store(write, current.version, actor);
    const record = recordFor(pattern, stored.domains, this.parts.prefixes);
    throw new AdministrationProblem(
      'invalid',
      'domain.record_missing',
      'This domain was added without a record to prove it: publish this one, wait for the DNS to serve it, and try again.',
      [],
      record ? { record: { type: 'TXT', name: record.name, value: record.value } } : {},
    );
  }

  /**
   * The catalog's entry of `name`, when the API may write it: undefined for a new name,
   * 409 for the operator's connection (configuration, hand-written file).
   */
  async #writable(name: string): Promise<CatalogEntry | undefined> {
    const entry = await unavailableAs503(() => this.parts.catalog.get(name));
    if (entry) return entry;
    const connection = this.parts.registry.byName(name);
    if (connection && !connection.managed) throw operatorOwned(name);
    return undefined;
  }

  /** The keys to store: every secret given sealed, a secret left out kept as stored, `""` clearing it. */
  #sealed(name: string, section: Readonly<Record<string, unknown>>, current: CatalogEntry | undefined) {
    const keys: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(section)) {
      if (!this.parts.secretKeys.includes(key) || typeof value !== 'string') keys[key] = value;
      else if (value !== '') keys[key] = this.#seal(name, key, value);
    }
    for (const key of this.parts.secretKeys) {
      if (!(key in section) && current && typeof current.keys[key] === 'string') keys[key] = current.keys[key];
    }
    return keys;
  }

  #seal(name: string, field: string, value: string): string {
    if (!this.parts.sealing) {
      throw new AdministrationProblem(
        'invalid',
        'secrets.no_encryption_key',
        'This deployment has no Administration:EncryptionKeys, so it cannot store a secret: secrets are never stored in the clear. Ask its operator to configure a key.',
        [{ key: field, message: 'cannot be stored without an encryption key' }],
      );
    }
    try {
      return this.parts.sealing.seal(value, { connection: name.toLowerCase(), field });
    } catch (error) {
      if (!isGatehouseError(error) || error.code !== 'secrets.secret_too_large') throw error;
      throw new AdministrationProblem('invalid', error.code, 'A secret is larger than a secret can be stored.', [
        { key: field, message: error.message },
      ]);
    }
  }

  /** The connection the write would put in force, checked by every rule of the registry; 422 or 409 otherwise. */
  async #checked(write: CatalogWrite, current: CatalogEntry | undefined, origin: string) {
    const candidate: CatalogEntry = { ...write, version: current?.version ?? 0, updatedAt: this.parts.now() };
    const declaration = await this.parts.declare(candidate, origin);
    if (write.keys.Enabled === false) {
      refuseProblems(declaration.problems, 'connection.invalid', 'The connection has keys that cannot be read.');
      return undefined;
    }
    const { connection, problems, conflicts } = this.parts.registry.check(declaration);
    refuseProblems(problems, 'connection.invalid', 'The connection breaks the rules of a connection.');
    if (conflicts.some((problem) => problem.severity === 'error')) {
      throw new AdministrationProblem(
        'conflict',
        'connection.conflict',
        'The connection would share a name, a domain or an identity provider with another connection.',
        keyProblems(conflicts),
      );
    }
    return connection;
  }

  /**
   * 409 when another connection routes an overlapping domain (the operator's, or one whose
   * owner proved it), or another entry of the catalog proved it (an instance that has not
   * heard of it yet still refuses): a domain proved by one organization is not another's.
   */
  async #refuseTakenDomains(name: string, organization: string, domains: readonly string[]): Promise<void> {
    for (const domain of domains) {
      // A wildcard is proved by its base domain's record: another organization's proved base
      // makes the wildcard theirs too.
      const checked = isWildcard(domain) ? [domain, domain.slice(2)] : [domain];
      const holder = checked.map((pattern) => this.parts.registry.holderOf(pattern, name)).find(Boolean);
      const claims = holder
        ? []
        : (
            await Promise.all(
              checked.map((pattern) => unavailableAs503(() => this.parts.catalog.claimsOf(pattern, name))),
            )
          ).flat();
      const proved = claims.find((claim) => claim.verified);
      if (holder || proved) {
        const other = holder?.organization ?? proved?.organization;
        throw new AdministrationProblem(
          'conflict',
          'domain.taken',
          other === organization
            ? `${domain} routes to another connection of this organization already: a domain routes to one connection.`
            : `${domain} belongs to another organization, which proved it: a domain routes to one organization.`,
          [{ key: 'Domains', message: `holds ${domain}, which another connection routes` }],
        );
      }
    }
  }

  async #preflight(connection: Connection): Promise<void> {
    const refusals = await this.parts.preflight.check(connection);
    if (refusals.length === 0) return;
    throw new AdministrationProblem(
      'invalid',
      'connection.preflight_failed',
      'The identity provider did not answer as the connection declares it: nothing was stored.',
      refusals.map((refusal) => ({ key: refusal.key, message: refusal.reason })),
    );
  }

  /** Stores the write at the version expected and puts it in force here; 409 on another version. */
  async #store(write: CatalogWrite, expected: ExpectedVersion, actor: Actor): Promise<CatalogEntry> {
    void actor;
    const outcome = await unavailableAs503(() => this.parts.catalog.put(write, expected, this.parts.now()));
    if (outcome.kind === 'conflict') {
      if (outcome.currentVersion === undefined && expected !== 0) throw operatorOwned(write.name);
      throw versionConflict(outcome.currentVersion);
    }
    const origin = this.parts.catalog.originOf(write.name);
    this.parts.registry.apply([{ kind: 'declared', declaration: await this.parts.declare(outcome.entry, origin) }]);
    return outcome.entry;
  }

  /** The entry as the API shows it, in the state the registry holds it: its newest version refused shows `refused`. */
  #view(entry: CatalogEntry): ConnectionView {
    const { registry, catalog } = this.parts;
    const refused = registry.refused().get(entry.name.toLowerCase())?.origin === catalog.originOf(entry.name);
    const state = entry.keys.Enabled === false ? 'disabled' : refused ? 'refused' : 'in-force';
    return entryView(entry, this.parts.secretKeys, state, this.parts.prefixes);
  }

  #about(entry: CatalogEntry, actor: Actor) {
    return {
      request: actor.request,
      actor: actor.id,
      connection: entry.name,
      organization: typeof entry.keys.Organization === 'string' ? entry.keys.Organization : undefined,
    };
  }
}
