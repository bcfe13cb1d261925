import type { ConnectionDeclaration } from '../../domain/connections/connection.js';

/** A change a directory saw: a connection declared anew or changed, or one no longer declared. */
export type ConnectionChange =
  { kind: 'declared'; declaration: ConnectionDeclaration } | { kind: 'removed'; name: string; origin: string };

/**
 * Where connections are declared: the configuration (fixed for the life of the process),
 * a folder operators or a provisioning job write one file per connection into (watched),
 * or an application's own database (an adapter of its own, see docs/connections.md). A
 * directory only reads and types declarations: every rule is the registry's.
 */
export interface ConnectionDirectory {
  /** A short name for log lines and readiness: `configuration`, `folder`. */
  readonly name: string;
  /** Every connection declared now. */
  read(): Promise<ConnectionDeclaration[]>;
  /**
   * Reports later changes until the returned function is called: each change once, in the
   * order seen. A directory that cannot change has none.
   */
  watch?(onChanges: (changes: ConnectionChange[]) => void): () => void;
}

export const ConnectionDirectoriesToken = Symbol('ConnectionDirectory[]');
