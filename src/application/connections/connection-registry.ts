import type { Connection, ConnectionDeclaration } from '../../domain/connections/connection.js';
import { ConnectionIndex } from '../../domain/connections/connection-index.js';
import { readConnection, type ConnectionRulesContext } from '../../domain/connections/read-connection.js';
import { error, type SettingsProblem } from '../../domain/settings/problem.js';
import type { ConnectionChange } from '../ports/connection-directory.js';

/** What happened to a connection when a declaration was applied. */
export type ConnectionEvent =
  | { kind: 'added' | 'changed'; connection: Connection; previous?: Connection; warnings: readonly SettingsProblem[] }
  | { kind: 'removed'; connection: Connection }
  /** Refused: the previous version, if any, stays in force. */
  | { kind: 'refused'; name: string; origin: string; problems: readonly SettingsProblem[] };

/**
 * The connections in force, and every change to them: each declaration is read by the
 * connection rules and checked against the others (ConnectionIndex) before it replaces
 * anything; a refused one leaves the previous version of that connection working and is
 * remembered (with its problems) for readiness. A connection declared with `Enabled`
 * false is not in force, as if removed.
 */
export class ConnectionRegistry {
  readonly #index: ConnectionIndex;
  readonly #refused = new Map<
    string,
    { origin: string; problems: readonly SettingsProblem[]; declaration: ConnectionDeclaration }
  >();
  readonly #listeners: Array<(event: ConnectionEvent) => void> = [];

  constructor(
    private readonly rules: ConnectionRulesContext,
    reservedNames: ReadonlySet<string>,
  ) {
    this.#index = new ConnectionIndex(reservedNames);
  }

  get size(): number {
    return this.#index.size;
  }

  byName(name: string): Connection | undefined {
    return this.#index.byName(name);
  }

  byDomain(domain: string): Connection | undefined {
    return this.#index.byDomain(domain);
  }

  all(): IterableIterator<Connection> {
    return this.#index.all();
  }

  /** Declarations refused and not in force as declared, by name: what readiness lists. */
  refused(): ReadonlyMap<string, { origin: string; problems: readonly SettingsProblem[] }> {
    return this.#refused;
  }

  onEvent(listener: (event: ConnectionEvent) => void): void {
    this.#listeners.push(listener);
  }

  /** Applies changes in order; what each did. */
  apply(changes: readonly ConnectionChange[]): ConnectionEvent[] {
    const events = changes.flatMap((change) =>
      change.kind === 'declared' ? this.#declare(change.declaration) : this.#remove(change.name, change.origin),
    );
    // What a removed or changed connection gave up (a domain, an identity provider, a name) may
    // be what a declaration was refused for: those are tried again, as a restart would read them.
    if (events.some((event) => event.kind === 'removed' || event.kind === 'changed')) {
      events.push(...this.#retryRefused());
    }
    for (const event of events) for (const listener of this.#listeners) listener(event);
    return events;
  }

  #declare(declaration: ConnectionDeclaration): ConnectionEvent[] {
    if (declaration.section.Enabled === false && declaration.problems.length === 0) {
      return this.#remove(declaration.name, declaration.origin);
    }
    const { connection, problems } = readConnection(declaration, this.rules);
    const conflicts = connection
      ? this.#index
          .conflicts(connection)
          .map((conflict) =>
            error(
              conflict.setting === '' ? declaration.origin : `${declaration.origin}:${conflict.setting}`,
              conflict.message,
            ),
          )
      : [];
    const errors = [...problems, ...conflicts].filter((problem) => problem.severity === 'error');
    if (!connection || errors.length > 0) {
      const refused = { origin: declaration.origin, problems: [...problems, ...conflicts] };
      this.#refused.set(declaration.name.toLowerCase(), { ...refused, declaration });
      return [{ kind: 'refused', name: declaration.name, ...refused }];
    }
    this.#refused.delete(connection.id);
    const previous = this.#index.byName(connection.id);
    if (previous?.fingerprint === connection.fingerprint) return [];
    this.#index.put(connection);
    return [
      previous
        ? { kind: 'changed', connection, previous, warnings: problems }
        : { kind: 'added', connection, warnings: problems },
    ];
  }

  /** The refused declarations that pass now; one refused again says nothing new, and is not reported again. */
  #retryRefused(): ConnectionEvent[] {
    return [...this.#refused.values()].flatMap(({ declaration }) => {
      const retried = this.#declare(declaration);
      return retried.some((event) => event.kind === 'refused') ? [] : retried;
    });
  }

  /**
   * Only the declaration a connection came from can take it away: a folder file refused
   * because the configuration holds its name removes nothing when it is deleted or disabled.
   */
  #remove(name: string, origin: string): ConnectionEvent[] {
    const id = name.toLowerCase();
    if (this.#refused.get(id)?.origin === origin) this.#refused.delete(id);
    if (this.#index.byName(id)?.origin !== origin) return [];
    const removed = this.#index.remove(id);
    return removed ? [{ kind: 'removed', connection: removed }] : [];
  }
}
