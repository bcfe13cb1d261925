import type { DeclareEntry } from '../ports/connection-catalog.js';
import type { IdentityProvider } from '../ports/identity-provider.js';
import type { BuildConnectionAdapter } from './connection-adapters.js';
import type { ConnectionRegistry } from './connection-registry.js';

/** Candidate adapters kept: one per connection (its latest draft), so drafts cannot pile up. */
const KEPT = 64;

/**
 * A changed version of an activated connection, as the setup portal tests it before it
 * replaces the live one: the draft's keys (secrets sealed, as the catalog stores them) read
 * by the same rules as a stored version, with the live version's proved domains, and an
 * identity adapter of its own built for it (kept per connection while the draft is the
 * same). The live connection and its adapter go on signing people in meanwhile. The draft
 * travels in the test's flow record, so the instance that receives the provider's answer
 * rebuilds the same candidate, whichever instance started the test.
 */
export class CandidateConnections {
  readonly #built = new Map<string, { fingerprint: string; adapter: Promise<IdentityProvider> }>();

  constructor(
    private readonly registry: ConnectionRegistry,
    private readonly declare: DeclareEntry,
    private readonly build: BuildConnectionAdapter,
  ) {}

  /** The adapter of `name`'s draft `keys`; undefined when no such connection is in force or the draft breaks a rule. */
  async adapterFor(name: string, keys: Readonly<Record<string, unknown>>): Promise<IdentityProvider | undefined> {
    const live = this.registry.byName(name);
    if (!live?.managed) return undefined;
    const declaration = await this.declare(
      { name: live.name, keys, domains: [], version: 0, updatedAt: 0 },
      live.origin,
    );
    const { connection, problems } = this.registry.check({ ...declaration, verifiedDomains: [...live.domains] });
    if (!connection || problems.some((problem) => problem.severity === 'error')) return undefined;
    if (connection.organization !== live.organization) return undefined;
    const built = this.#built.get(connection.id);
    if (built?.fingerprint === connection.fingerprint) return built.adapter;
    const adapter = this.build(connection);
    this.#built.delete(connection.id);
    this.#built.set(connection.id, { fingerprint: connection.fingerprint, adapter });
    if (this.#built.size > KEPT) this.#built.delete(this.#built.keys().next().value ?? '');
    adapter.catch(() => {
      if (this.#built.get(connection.id)?.adapter === adapter) this.#built.delete(connection.id);
    });
    return adapter;
  }
}

/** Where no connections exist: no candidate either. */
export const NO_CANDIDATES: Pick<CandidateConnections, 'adapterFor'> = { adapterFor: async () => undefined };

export const CandidateConnectionsToken = Symbol('CandidateConnections');
