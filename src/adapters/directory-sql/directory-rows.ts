import type { DirectoryChange, DirectoryChangeKind, StoredScimToken } from '../../application/ports/directory-store.js';
import type { DirectoryUser } from '../../domain/directory/directory-resources.js';

/**
 * A user's or a group's row as both directory stores read it back, but for its attributes,
 * whose JSON each store's driver gives its own way. Times are milliseconds since the epoch.
 */
export interface ResourceColumns {
  id: string;
  organization: string;
  version: number;
  created: number;
  last_modified: number;
}

/** A user or a group from its row, its `attributes` as the store read them from its JSON. */
export function resourceFromRow<A>(
  row: ResourceColumns,
  attributes: A,
): Omit<DirectoryUser, 'attributes'> & { attributes: A } {
  return {
    id: row.id,
    organization: row.organization,
    attributes,
    version: row.version,
    created: row.created,
    lastModified: row.last_modified,
  };
}

/** A change's row as both stores read it back, but for its position and members (each driver's own way). */
export interface ChangeColumns {
  id: string;
  organization: string;
  kind: DirectoryChangeKind;
  resource_type: 'User' | 'Group';
  resource_id: string;
  at: number;
}

/** `position` as the port orders it (a decimal integer as text); `members` for group_membership. */
export function changeFromRow(
  row: ChangeColumns,
  position: string,
  members: { added: string[]; removed: string[] } | null,
): DirectoryChange {
  const change: DirectoryChange = {
    position,
    id: row.id,
    organization: row.organization,
    kind: row.kind,
    resourceType: row.resource_type,
    resourceId: row.resource_id,
    at: row.at,
  };
  if (members) change.members = members;
  return change;
}

export interface TokenRow {
  organization: string;
  id: string;
  hash: string;
  created_at: number;
  last_used_at: number | null;
}

export function tokenOf(row: TokenRow): StoredScimToken {
  const token: StoredScimToken = { id: row.id, hash: row.hash, createdAt: row.created_at };
  if (row.last_used_at !== null) token.lastUsedAt = row.last_used_at;
  return token;
}

/** Our ids are UUIDs in lower case, as the stores give them: anything else names nothing (and never reaches a uuid cast). */
const OUR_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isOurId(id: string): boolean {
  return OUR_ID.test(id);
}
