/**
 * The part of Node's built-in SQLite (`node:sqlite`, Node 22.13 and later) the embedded
 * directory store uses, typed here: the types of Node 20, the oldest line Gatehouse runs
 * on, know no such module.
 */

/** What a statement binds: SQLite takes no booleans (1 and 0 stand for them). */
export type SqliteValue = null | number | bigint | string | Uint8Array;

export interface SqliteStatement {
  all(...parameters: SqliteValue[]): unknown[];
  get(...parameters: SqliteValue[]): unknown;
  run(...parameters: SqliteValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
}

export interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  /** A JavaScript function SQL may call; `deterministic` lets SQLite reuse a result within a statement. */
  function(name: string, options: { deterministic: boolean }, implementation: (...args: never[]) => unknown): void;
  close(): void;
}

export type SqliteDatabaseConstructor = new (
  path: string,
  options?: { enableForeignKeyConstraints?: boolean },
) => SqliteDatabase;

/**
 * The module's name in a variable: a literal would make tsc look for its types, and esbuild
 * leaves an import it cannot follow as it is (a built-in, found by Node at run time).
 */
const NODE_SQLITE = 'node:sqlite';

/**
 * `DatabaseSync` of `node:sqlite`, or undefined on a Node without it (Node 20; 22 before
 * 22.13, where it needs a flag). Imported on first call only, so that an instance that keeps
 * no directory never loads it (on Node 22, loading it prints an ExperimentalWarning: see
 * src/bootstrap/process-warnings.ts).
 */
export async function loadNodeSqlite(): Promise<SqliteDatabaseConstructor | undefined> {
  let loaded: unknown;
  try {
    loaded = await import(NODE_SQLITE);
  } catch {
    return undefined;
  }
  if (typeof loaded !== 'object' || loaded === null || !('DatabaseSync' in loaded)) return undefined;
  const { DatabaseSync } = loaded;
  // The built-in's own class: its methods are those typed above (Node's documentation, 22.13 on).
  return typeof DatabaseSync === 'function' ? (DatabaseSync as SqliteDatabaseConstructor) : undefined;
}
