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

export { isOurId, tokenOf, type TokenRow } from '../directory-sql/directory-rows.js';

/** A timestamptz as whole milliseconds since the epoch, a float8 so that pg returns a number (bigint comes back as text). */
export function millis(column: string): string {
  return `floor(extract(epoch FROM ${column}) * 1000)::float8`;
}

/** A time the port gives in milliseconds, as a timestamptz parameter: ISO 8601 in UTC, exact to the millisecond. */
export function timestamp(at: number): string {
  return new Date(at).toISOString();
}

/** The columns of a user or a group (`r` is its table), times as milliseconds. */
export const RESOURCE_COLUMNS = `r.id, r.organization, r.attributes, r.version,
  ${millis('r.created')} AS created, ${millis('r.last_modified')} AS last_modified`;

export interface ResourceRow extends ResourceColumns {
  /** jsonb, which pg gives as its value. */
  attributes: unknown;
}

/** Rows are the store's own writes (attributes as the port gave them), read back as they went in. */
export function userOf(row: ResourceRow): DirectoryUser {
  return resourceFromRow(row, row.attributes as UserAttributes);
}

export function groupOf(row: ResourceRow): DirectoryGroup {
  return resourceFromRow(row, row.attributes as GroupAttributes);
}

export const CHANGE_COLUMNS = `c.position, c.id, c.organization, c.kind, c.resource_type, c.resource_id,
  ${millis('c.at')} AS at, c.members`;

export interface ChangeRow extends ChangeColumns {
  /** bigint: text, as the port wants it. */
  position: string;
  members: { added: string[]; removed: string[] } | null;
}

export function changeOf(row: ChangeRow): DirectoryChange {
  return changeFromRow(row, row.position, row.members);
}

export const TOKEN_COLUMNS = `t.organization, t.id, t.hash, ${millis('t.created_at')} AS created_at,
  ${millis('t.last_used_at')} AS last_used_at`;
