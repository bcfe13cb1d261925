import type { DirectoryChange } from '../../application/ports/directory-store.js';
import type {
  DirectoryGroup,
  DirectoryUser,
  GroupAttributes,
  UserAttributes,
} from '../../domain/directory/directory-resources.js';
import {
  changeFromRow,
  resourceFromRow,
  type ChangeColumns,
  type ResourceColumns,
} from '../directory-sql/directory-rows.js';
import type { SqliteDatabase, SqliteValue } from './node-sqlite.js';

export { isOurId, tokenOf, type TokenRow } from '../directory-sql/directory-rows.js';

/**
 * A value with letter case folded, as every case-insensitive comparison of the store makes it
 * (userName, displayName, e-mails, the filters' strings): JavaScript's Unicode lower case, the
 * same the domain's value filters use. The store writes it into the `*_key` columns and binds
 * it for parameters; SQL reaches it as `directory_fold(...)` (registered at open).
 */
export function fold(value: string): string {
  return value.toLowerCase();
}

/** `fold` as SQL calls it: NULL stays NULL, a value of another type is no string to compare. */
export function sqlFold(value: unknown): string | null {
  return typeof value === 'string' ? fold(value) : null;
}

/** The rows a statement of ours returns: its columns are the ones it names. */
export function rowsOf<T>(db: SqliteDatabase, sql: string, ...parameters: SqliteValue[]): T[] {
  return db.prepare(sql).all(...parameters) as T[];
}

export function rowOf<T>(db: SqliteDatabase, sql: string, ...parameters: SqliteValue[]): T | undefined {
  return db.prepare(sql).get(...parameters) as T | undefined;
}

/** Runs a statement that returns nothing; answers how many rows it changed. */
export function run(db: SqliteDatabase, sql: string, ...parameters: SqliteValue[]): number {
  return Number(db.prepare(sql).run(...parameters).changes);
}

/** A list bound as one parameter (JSON text), read in SQL with `json_each`: one statement whatever its length. */
export function list(values: readonly string[]): string {
  return JSON.stringify(values);
}

/** The columns of a user or a group (`r` is its table). */
export const RESOURCE_COLUMNS = 'r.id, r.organization, r.attributes, r.version, r.created, r.last_modified';

/** The same, after RETURNING (where SQLite knows no alias of the table). */
export const RETURNED_COLUMNS = 'id, organization, attributes, version, created, last_modified';

export interface ResourceRow extends ResourceColumns {
  /** JSON text. */
  attributes: string;
}

/** Rows are the store's own writes (attributes as the port gave them), read back as they went in. */
export function userOf(row: ResourceRow): DirectoryUser {
  return resourceFromRow(row, JSON.parse(row.attributes) as UserAttributes);
}

export function groupOf(row: ResourceRow): DirectoryGroup {
  return resourceFromRow(row, JSON.parse(row.attributes) as GroupAttributes);
}

export const CHANGE_COLUMNS =
  'c.position, c.id, c.organization, c.kind, c.resource_type, c.resource_id, c.at, c.members';

export interface ChangeRow extends ChangeColumns {
  position: number;
  /** JSON text of `{ added, removed }`, for group_membership. */
  members: string | null;
}

export function changeOf(row: ChangeRow): DirectoryChange {
  const members = row.members === null ? null : (JSON.parse(row.members) as { added: string[]; removed: string[] });
  return changeFromRow(row, String(row.position), members);
}

export const TOKEN_COLUMNS = 't.organization, t.id, t.hash, t.created_at, t.last_used_at';

/** A time of the port (milliseconds) as the store keeps it: whole milliseconds, as PostgreSQL's store rounds them. */
export function millis(at: number): number {
  return Math.floor(at);
}
