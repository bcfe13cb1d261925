import { randomUUID } from 'node:crypto';
import type {
  CreateOutcome,
  DeleteOutcome,
  GroupChange,
  WriteOutcome,
} from '../../application/ports/directory-store.js';
import type { DirectoryGroup, GroupAttributes, GroupMember } from '../../domain/directory/directory-resources.js';
import { appendChanges, type NewChange } from './directory-feed.js';
import {
  RESOURCE_COLUMNS,
  RETURNED_COLUMNS,
  fold,
  groupOf,
  isOurId,
  list,
  millis,
  rowOf,
  rowsOf,
  run,
  type ResourceRow,
} from './directory-rows.js';
import type { SqliteDatabase } from './node-sqlite.js';

/*
 * Each write runs in the store's transaction, synchronously: a user checked live here cannot
 * be deleted before the membership is written. The outcomes come in the PostgreSQL store's
 * order: unknown members, then missing, then stale, then a name taken.
 */

export function selectGroup(db: SqliteDatabase, organization: string, id: string): DirectoryGroup | undefined {
  if (!isOurId(id)) return undefined;
  const row = rowOf<ResourceRow>(
    db,
    `SELECT ${RESOURCE_COLUMNS} FROM directory_groups r WHERE r.organization = ? AND r.id = ?`,
    organization,
    id,
  );
  return row && groupOf(row);
}

export function insertGroup(
  db: SqliteDatabase,
  organization: string,
  attributes: GroupAttributes,
  members: readonly string[],
  at: number,
): CreateOutcome<DirectoryGroup> {
  const joining = distinct(members);
  const unknown = unknownMembers(db, organization, joining);
  if (unknown.length > 0) return { kind: 'unknown_members', ids: unknown };
  if (displayNameTaken(db, organization, attributes.displayName, undefined)) {
    return { kind: 'taken', attribute: 'displayName' };
  }
  const row = rowOf<ResourceRow>(
    db,
    `INSERT INTO directory_groups
       (id, organization, attributes, display_name, display_name_key, external_id, version, created, last_modified)
     VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)
     RETURNING ${RETURNED_COLUMNS}`,
    randomUUID(),
    organization,
    JSON.stringify(attributes),
    ...searchedColumns(attributes),
    millis(at),
    millis(at),
  )!;
  const added = addMembers(db, organization, row.id, joining);
  appendChanges(db, [
    groupChange(organization, 'created', row.id, at),
    ...membershipChanges(organization, row.id, at, added, []),
  ]);
  return { kind: 'written', resource: groupOf(row) };
}

/**
 * Changes a group if it is at `expected`: its attributes when given, its members as said
 * (removals before additions), each a statement whatever the number of ids. Every call that
 * finds the group at its version writes it (one version more), and the feed gets `updated`
 * for new attributes and `group_membership` for the members that actually joined or left.
 */
export function updateGroup(
  db: SqliteDatabase,
  organization: string,
  id: string,
  change: GroupChange,
  expected: number | undefined,
  at: number,
): WriteOutcome<DirectoryGroup> {
  if (!isOurId(id)) return { kind: 'missing' };
  const members = change.members;
  const joining = distinct(members ? ('replace' in members ? members.replace : (members.add ?? [])) : []);
  const unknown = unknownMembers(db, organization, joining);
  if (unknown.length > 0) return { kind: 'unknown_members', ids: unknown };
  const current = versionOf(db, organization, id);
  if (current === undefined) return { kind: 'missing' };
  if (expected !== undefined && current !== expected) return { kind: 'stale', currentVersion: current };
  if (change.attributes && displayNameTaken(db, organization, change.attributes.displayName, id)) {
    return { kind: 'taken', attribute: 'displayName' };
  }
  const row = change.attributes
    ? rowOf<ResourceRow>(
        db,
        `UPDATE directory_groups
            SET attributes = ?, display_name = ?, display_name_key = ?, external_id = ?,
                version = version + 1, last_modified = ?
          WHERE organization = ? AND id = ?
          RETURNING ${RETURNED_COLUMNS}`,
        JSON.stringify(change.attributes),
        ...searchedColumns(change.attributes),
        millis(at),
        organization,
        id,
      )!
    : rowOf<ResourceRow>(
        db,
        `UPDATE directory_groups SET version = version + 1, last_modified = ?
          WHERE organization = ? AND id = ?
          RETURNING ${RETURNED_COLUMNS}`,
        millis(at),
        organization,
        id,
      )!;
  let removed: string[] = [];
  let added: string[] = [];
  if (members && 'replace' in members) {
    removed = removeMembersExcept(db, id, joining);
    added = addMembers(db, organization, id, joining);
  } else if (members) {
    removed = removeMembers(db, id, distinct(members.remove ?? []));
    added = addMembers(db, organization, id, joining);
  }
  appendChanges(db, [
    ...(change.attributes ? [groupChange(organization, 'updated', id, at)] : []),
    ...membershipChanges(organization, id, at, added, removed),
  ]);
  return { kind: 'written', resource: groupOf(row) };
}

export function deleteGroup(
  db: SqliteDatabase,
  organization: string,
  id: string,
  expected: number | undefined,
  at: number,
): DeleteOutcome {
  if (!isOurId(id)) return { kind: 'missing' };
  const current = versionOf(db, organization, id);
  if (current === undefined) return { kind: 'missing' };
  if (expected !== undefined && current !== expected) return { kind: 'stale', currentVersion: current };
  run(db, 'DELETE FROM directory_groups WHERE organization = ? AND id = ?', organization, id);
  appendChanges(db, [{ organization, kind: 'deleted', resourceType: 'Group', resourceId: id, at }]);
  return { kind: 'deleted' };
}

export function selectMembers(db: SqliteDatabase, organization: string, groupId: string): GroupMember[] {
  if (!isOurId(groupId)) return [];
  return rowsOf<{ value: string; display: string | null }>(
    db,
    `SELECT m.user_id AS value, COALESCE(NULLIF(u.attributes ->> '$.displayName', ''), u.user_name) AS display
       FROM directory_members m JOIN directory_users u ON u.id = m.user_id
      WHERE m.organization = ? AND m.group_id = ? AND u.deleted_at IS NULL
      ORDER BY m.added_order`,
    organization,
    groupId,
  ).map(({ value, display }) => (display === null ? { value } : { value, display }));
}

export function selectGroupsOf(db: SqliteDatabase, organization: string, userId: string): DirectoryGroup[] {
  if (!isOurId(userId)) return [];
  return rowsOf<ResourceRow>(
    db,
    `SELECT ${RESOURCE_COLUMNS}
       FROM directory_members m JOIN directory_groups r ON r.id = m.group_id
      WHERE m.organization = ? AND m.user_id = ? AND r.organization = m.organization
      ORDER BY r.created, r.creation_order`,
    organization,
    userId,
  ).map(groupOf);
}

/** displayName, its folded key and externalId: the columns searched, from the attributes they are kept beside. */
function searchedColumns(attributes: GroupAttributes): [string, string, string | null] {
  return [attributes.displayName, fold(attributes.displayName), attributes.externalId ?? null];
}

function displayNameTaken(
  db: SqliteDatabase,
  organization: string,
  displayName: string,
  except: string | undefined,
): boolean {
  return (
    rowOf(
      db,
      'SELECT 1 FROM directory_groups WHERE organization = ? AND display_name_key = ? AND id IS NOT ?',
      organization,
      fold(displayName),
      except ?? null,
    ) !== undefined
  );
}

/** The ids that are no live user of the organization, in one statement whatever their number. */
function unknownMembers(db: SqliteDatabase, organization: string, ids: readonly string[]): string[] {
  if (ids.length === 0) return [];
  const known = new Set(
    rowsOf<{ id: string }>(
      db,
      `SELECT id FROM directory_users
        WHERE organization = ? AND deleted_at IS NULL AND id IN (SELECT value FROM json_each(?))`,
      organization,
      list(ids.filter(isOurId)),
    ).map((row) => row.id),
  );
  return ids.filter((id) => !known.has(id));
}

/** Adds the members not members yet, in the order given (each gets the next `added_order`); answers those added. */
function addMembers(db: SqliteDatabase, organization: string, groupId: string, ids: readonly string[]): string[] {
  if (ids.length === 0) return [];
  const rows = rowsOf<{ user_id: string }>(
    db,
    `INSERT INTO directory_members (group_id, user_id, organization)
     SELECT ?, value, ? FROM json_each(?) WHERE true ORDER BY key
     ON CONFLICT (group_id, user_id) DO NOTHING
     RETURNING user_id`,
    groupId,
    organization,
    list(ids),
  );
  return inOrder(ids, rows);
}

function removeMembers(db: SqliteDatabase, groupId: string, ids: readonly string[]): string[] {
  const ours = ids.filter(isOurId);
  if (ours.length === 0) return [];
  const rows = rowsOf<{ user_id: string }>(
    db,
    `DELETE FROM directory_members WHERE group_id = ? AND user_id IN (SELECT value FROM json_each(?)) RETURNING user_id`,
    groupId,
    list(ours),
  );
  return inOrder(ours, rows);
}

/** Removes every member not in `ids` (a replace); answers those removed, in the order they had joined. */
function removeMembersExcept(db: SqliteDatabase, groupId: string, ids: readonly string[]): string[] {
  return rowsOf<{ user_id: string; added_order: number }>(
    db,
    `DELETE FROM directory_members WHERE group_id = ? AND user_id NOT IN (SELECT value FROM json_each(?))
     RETURNING user_id, added_order`,
    groupId,
    list(ids),
  )
    .sort((a, b) => a.added_order - b.added_order)
    .map((row) => row.user_id);
}

/** Of `ids`, those the statement returned, in the order of `ids` (RETURNING promises none). */
function inOrder(ids: readonly string[], rows: readonly { user_id: string }[]): string[] {
  const returned = new Set(rows.map((row) => row.user_id));
  return ids.filter((id) => returned.has(id));
}

function distinct(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

function versionOf(db: SqliteDatabase, organization: string, id: string): number | undefined {
  return rowOf<{ version: number }>(
    db,
    'SELECT version FROM directory_groups WHERE organization = ? AND id = ?',
    organization,
    id,
  )?.version;
}

function groupChange(organization: string, kind: 'created' | 'updated', id: string, at: number): NewChange {
  return { organization, kind, resourceType: 'Group', resourceId: id, at };
}

function membershipChanges(
  organization: string,
  id: string,
  at: number,
  added: string[],
  removed: string[],
): NewChange[] {
  if (added.length === 0 && removed.length === 0) return [];
  return [
    { organization, kind: 'group_membership', resourceType: 'Group', resourceId: id, at, members: { added, removed } },
  ];
}
