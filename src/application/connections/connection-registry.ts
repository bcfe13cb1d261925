import type { Connection, ConnectionDeclaration } from '../../domain/connections/connection.js';
import { ConnectionIndex } from '../../domain/connections/connection-index.js';
import { readConnection, type ConnectionRulesContext } from '../../domain/connections/read-connection.js';
import { error, type SettingsProblem } from '../../domain/settings/problem.js';
import type { ConnectionChange } from '../ports/connection-directory.js';
import { DeferredDeclarations, type DeferredDeclaration } from './deferred-declarations.js';

/** What happened to a connection when a declaration was applied. */
export type ConnectionEvent = (
  | { kind: 'added' | 'changed'; connection: Connection; previous?: Connection; warnings: readonly SettingsProblem[] }
  | { kind: 'removed'; connection: Connection }
  /** Refused: the previous version, if any, stays in force. */
  | { kind: 'refused'; name: string; origin: string; problems: readonly SettingsProblem[] }
) & {
  /** The declaration was deferred at start (`defer`) and checked since: by the start's rules, not as a change. */
  deferred?: true;
};

/**
 * The connections in force, and every change to them: each declaration is read by the
 * connection rules and checked against the others (ConnectionIndex) before it replaces
 * anything; a refused one leaves the previous version of that connection working and is
 * remembered (with its problems) for readiness. A connection declared with `Enabled`
 * false is not in force, as if removed.
 *
 * Declarations read at start may be deferred (`defer`: a large catalog), to be checked in
 * the background (`checkDeferred`). None is in force before it is checked; a lookup that
 * may find one checks it there and then, after the earlier deferred ones it could conflict
 * with, so every lookup answers as if all had been checked in order; and anything that
 * needs them all (`all`, `check`, `holderOf`, `apply`) checks those left first.
 */
export class ConnectionRegistry {
  readonly #index: ConnectionIndex;
  readonly #refused = new Map<
    string,
    { origin: string; problems: readonly SettingsProblem[]; declaration: ConnectionDeclaration }
  >();
  readonly #listeners: Array<(event: ConnectionEvent) => void> = [];
  readonly #deferred: DeferredDeclarations;

  constructor(
    private readonly rules: ConnectionRulesContext,
    reservedNames: ReadonlySet<string>,
  ) {
    this.#index = new ConnectionIndex(reservedNames);
    this.#deferred = new DeferredDeclarations(rules.protocols);
  }

  /** The connections in force now (none deferred and not checked yet). */
  get size(): number {
    return this.#index.size;
  }

  byName(name: string): Connection | undefined {
    if (this.#deferred.size > 0) this.#checkNow(this.#deferred.takeWithRivals(name.toLowerCase()));
    return this.#index.byName(name);
  }

  /** The connection holding a normalized e-mail domain; one in force holds it against any deferred one. */
  byDomain(domain: string): Connection | undefined {
    const held = this.#index.byDomain(domain);
    if (held !== undefined || this.#deferred.size === 0) return held;
    this.#checkNow(this.#deferred.takeClaimants(domain));
    return this.#index.byDomain(domain);
  }

  /** Every connection, the deferred ones checked first. */
  all(): IterableIterator<Connection> {
    this.#checkAllDeferred();
    return this.#index.all();
  }

  /** The connections in force now, without checking the deferred ones (readiness, the connections in use). */
  inForce(): IterableIterator<Connection> {
    return this.#index.all();
  }

  /** The connections listed on the login page, the deferred ones that could be checked first. */
  listedOnLoginPage(): Connection[] {
    if (this.#deferred.size > 0) this.#checkNow(this.#deferred.takeListed());
    return [...this.#index.all()].filter((connection) => connection.showOnLoginPage);
  }

  /**
   * Defers declarations read at start, after every declaration applied so far: none is in
   * force, refused or reported until checked (`checkDeferred`, or a lookup reaching it).
   */
  defer(declarations: readonly DeferredDeclaration[]): void {
    this.#checkAllDeferred();
    this.#deferred.add(declarations);
  }

  /** How many deferred declarations are not checked yet. */
  get deferredCount(): number {
    return this.#deferred.size;
  }

  /** The names of the deferred declarations not checked yet. */
  deferredNames(): IterableIterator<string> {
    return this.#deferred.names();
  }

  /** Checks the next `count` deferred declarations, in order, with their events; whether any is left. */
  checkDeferred(count: number): boolean {
    this.#checkNow(this.#deferred.takeNext(count));
    return this.#deferred.size > 0;
  }

  /**
   * What applying `declaration` would do, without doing it: the connection it builds, the
   * rules' problems, and its conflicts with the connections in force (but the one it
   * replaces). The administration API answers from this before it stores anything.
   */
  check(declaration: ConnectionDeclaration): {
    connection?: Connection;
    problems: SettingsProblem[];
    conflicts: SettingsProblem[];
  } {
    this.#checkAllDeferred();
    const { connection, problems } = readConnection(declaration, this.rules);
    if (!connection) return { problems, conflicts: [] };
    return { connection, problems, conflicts: this.#conflicts(connection, declaration.origin) };
  }

  /** The connection other than `exceptName` routing a domain that overlaps `pattern`, if any. */
  holderOf(pattern: string, exceptName: string): Connection | undefined {
    this.#checkAllDeferred();
    return this.#index.overlapping(pattern, exceptName.toLowerCase());
  }

  /** Declarations refused and not in force as declared, by name: what readiness lists (none deferred and not checked yet). */
  refused(): ReadonlyMap<string, { origin: string; problems: readonly SettingsProblem[] }> {
    return this.#refused;
  }

  onEvent(listener: (event: ConnectionEvent) => void): void {
    this.#listeners.push(listener);
  }

  /** Applies changes in order; what each did. */
  apply(changes: readonly ConnectionChange[]): ConnectionEvent[] {
    // A change meets every connection, as it would have after the start.
    this.#checkAllDeferred();
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

  #checkAllDeferred(): void {
    if (this.#deferred.size > 0) this.#checkNow(this.#deferred.takeAll());
  }

  /** Checks deferred declarations (in the order given) as the start would have, and tells the listeners. */
  #checkNow(declarations: readonly DeferredDeclaration[]): void {
    if (declarations.length === 0) return;
    const events = declarations.flatMap((deferred) =>
      this.#declare(deferred.declare()).map((event): ConnectionEvent => ({ ...event, deferred: true })),
    );
    for (const event of events) for (const listener of this.#listeners) listener(event);
  }

  #declare(declaration: ConnectionDeclaration): ConnectionEvent[] {
    if (declaration.section.Enabled === false && declaration.problems.length === 0) {
      return this.#remove(declaration.name, declaration.origin);
    }
    const { connection, problems } = readConnection(declaration, this.rules);
    const conflicts = connection ? this.#conflicts(connection, declaration.origin) : [];
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

  #conflicts(connection: Connection, origin: string): SettingsProblem[] {
    return this.#index
      .conflicts(connection)
      .map((conflict) => error(conflict.setting === '' ? origin : `${origin}:${conflict.setting}`, conflict.message));
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
