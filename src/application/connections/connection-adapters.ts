import type { Connection } from '../../domain/connections/connection.js';
import { GatehouseError, isGatehouseError } from '../../domain/errors.js';
import type { IdentityProvider } from '../ports/identity-provider.js';
import type { Logger } from '../ports/logger.js';
import type { ConnectionRegistry } from './connection-registry.js';

export type ConnectionStatus = 'up' | 'down' | 'idle' | 'refused' | 'pending';

/** The name as declared (the configuration key's last segment, or the file's name), else the lower-case one. */
function nameIn(origin: string, id: string): string {
  const last =
    origin
      .split(/[:/\\]/)
      .pop()
      ?.replace(/\.json$/i, '') ?? id;
  return last.toLowerCase() === id ? last : id;
}

/** Builds the identity adapter of one connection from its protocol's record (the composition root provides it). */
export type BuildConnectionAdapter = (connection: Connection) => Promise<IdentityProvider>;

/**
 * The identity adapters of the connections, built on first use and kept while the
 * connection is unchanged: a thousand connections cost a map entry each until someone
 * signs in through one, and no identity provider is contacted before (discovery and
 * metadata load lazily in the adapter). A changed or removed connection drops its
 * adapter, so the next use builds it from the new declaration; an adapter of an earlier
 * version still in use by a request in flight finishes with what it had.
 */
export class ConnectionAdapters {
  readonly #built = new Map<string, { fingerprint: string; adapter: Promise<IdentityProvider> }>();

  constructor(
    readonly registry: ConnectionRegistry,
    private readonly build: BuildConnectionAdapter,
    private readonly logger: Logger,
  ) {
    registry.onEvent((event) => {
      if (event.kind === 'changed' || event.kind === 'removed') this.#built.delete(event.connection.id);
    });
  }

  /** The adapter of the connection named `name` (case-insensitive), or undefined when none is in force. */
  adapterOf(name: string): Promise<IdentityProvider> | undefined {
    const connection = this.registry.byName(name);
    return connection ? this.adapterFor(connection) : undefined;
  }

  adapterFor(connection: Connection): Promise<IdentityProvider> {
    const built = this.#built.get(connection.id);
    if (built?.fingerprint === connection.fingerprint) return built.adapter;
    const adapter: Promise<IdentityProvider> = this.build(connection).catch((thrown: unknown) => {
      // Not kept: the next request tries again (a key file being rotated, say). Only this
      // build is forgotten: a later version's, built meanwhile, stays.
      if (this.#built.get(connection.id)?.adapter === adapter) this.#built.delete(connection.id);
      this.logger.error(
        { connection: connection.name, code: isGatehouseError(thrown) ? thrown.code : 'internal_error.unexpected' },
        'a connection could not be set up',
      );
      throw new GatehouseError('idp.unavailable', "This organization's sign-in is not available right now.", {
        safe: true,
        cause: thrown,
      });
    });
    this.#built.set(connection.id, { fingerprint: connection.fingerprint, adapter });
    return adapter;
  }

  /** The adapter of a connection in force when it was built already (used here since its last change), else undefined. */
  builtAdapterOf(connection: Connection): Promise<IdentityProvider> | undefined {
    const built = this.#built.get(connection.id);
    return built?.fingerprint === connection.fingerprint ? built.adapter : undefined;
  }

  /**
   * Each connection's state, by name, for readiness: its adapter's health once it was used
   * (`up`, `down`), `idle` before (no identity provider is contacted to answer a probe),
   * `refused` for a declaration refused with no earlier version in force, `pending` for one
   * read at start and not checked yet (a probe checks none). Never a reason to be unready:
   * one organization's identity provider must not take every instance out of rotation.
   */
  async report(): Promise<Record<string, ConnectionStatus>> {
    const report: Record<string, ConnectionStatus> = {};
    const checks: Array<Promise<void>> = [];
    for (const connection of this.registry.inForce()) {
      const built = this.#built.get(connection.id);
      if (!built) {
        report[connection.name] = 'idle';
        continue;
      }
      checks.push(
        built.adapter
          .then((adapter) => adapter.healthCheck?.check() ?? 'up')
          .catch(() => 'down' as const)
          .then((status) => {
            report[connection.name] = status === 'up' ? 'up' : 'down';
          }),
      );
    }
    await Promise.all(checks);
    for (const name of this.registry.deferredNames()) report[name] = 'pending';
    for (const [id, refused] of this.registry.refused()) {
      // A refused declaration is no deferred one: this checks nothing.
      if (!this.registry.byName(id)) report[nameIn(refused.origin, id)] = 'refused';
    }
    return report;
  }
}
