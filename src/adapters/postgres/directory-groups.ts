import { randomUUID } from 'node:crypto';
import type {
  CreateOutcome,
  DeleteOutcome,
  GroupChange,
  WriteOutcome,
} from '../../application/ports/directory-store.js';
import type { DirectoryGroup, GroupAttributes, GroupMember } from '../../domain/directory/directory-resources.js';
import { violates } from './directory-errors.js';
import { appendChanges, type NewChange, type Queryable } from './directory-feed.js';
import { RESOURCE_COLUMNS, groupOf, isOurId, timestamp, type ResourceRow } from './directory-rows.js';

/** The unique index of displayNames (migrations/0002_directory.sql). */
const DISPLAY_NAME_INDEX = 'gatehouse_directory_groups_display_name';

/*
 * Locks are taken in one order by every write that touches both users and groups: users
 * first (deleting a user updates its row, then its groups; adding members locks them FOR
 * SHARE, then the group), so that two such writes wait for each other, never deadlock.
 */

export async function selectGroup(
  db: Queryable,
  organization: string,
  id: string,
): Promise<DirectoryGroup | undefined> {
  if (!isOurId(id)) return undefined;
  const { rows } = await db.query<ResourceRow>(
    `SELECT ${RESOURCE_COLUMNS} FROM gatehouse_directory_groups r WHERE r.organization = $1 AND r.id = $2`,
    [organization, id],
  );
  const row = rows[0];
  return row && groupOf(row);
}

export async function insertGroup(
  db: Queryable,
  organization: string,
  attributes: GroupAttributes,
  members: readonly string[],
  at: number,
): Promise<CreateOutcome<DirectoryGroup>> {
  const joining = distinct(members);
  const unknown = await unknownMembers(db, organization, joining);
  if (unknown.length > 0) return { kind: 'unknown_members', ids: unknown };
  const { rows } = await db.query<ResourceRow>(
    `INSERT INTO gatehouse_directory_groups AS r (id, organization, attributes, version, created, last_modified)
     VALUES ($1, $2, $3, 1, $4, $4)
     ON CONFLICT (organization, lower(display_name)) DO NOTHING
     RETURNING ${RESOURCE_COLUMNS}`,
    [randomUUID(), organization, JSON.stringify(attributes), timestamp(at)],
  );
  const row = rows[0];
  if (!row) return { kind: 'taken', attribute: 'displayName' };
  const added = await addMembers(db, organization, row.id, joining);
  await appendChanges(db, [
    groupChange(organization, 'created', row.id, at),
    ...membershipChanges(organization, row.id, at, added, []),
  ]);
  return { kind: 'written', resource: groupOf(row) };
}

/**
 * Changes a group if it is at `expected`: its attributes when given, its members as said
 * (removals before additions), set-based: a statement each, additions one per
 * MEMBERS_PER_STATEMENT, whatever the number of ids. The version
 * check is the UPDATE's own condition; every call that finds the group at its version
 * writes it (one version more), and the feed gets `updated` for new attributes and
 * `group_membership` for the members that actually joined or left.
 */
export async function updateGroup(
  db: Queryable,
  organization: string,
  id: string,
  change: GroupChange,
  expected: number | undefined,
  at: number,
): Promise<WriteOutcome<DirectoryGroup>> {
  if (!isOurId(id)) return { kind: 'missing' };
  const members = change.members;
  const joining = distinct(members ? ('replace' in members ? members.replace : (members.add ?? [])) : []);
  const unknown = await unknownMembers(db, organization, joining);
  if (unknown.length > 0) return { kind: 'unknown_members', ids: unknown };
  let row: ResourceRow | undefined;
  try {
    ({
      rows: [row],
    } = await db.query<ResourceRow>(
      `UPDATE gatehouse_directory_groups r
          SET attributes = COALESCE($3::jsonb, r.attributes), version = r.version + 1, last_modified = $4
        WHERE r.organization = $1 AND r.id = $2 AND ($5::integer IS NULL OR r.version = $5)
        RETURNING ${RESOURCE_COLUMNS}`,
      [organization, id, change.attributes ? JSON.stringify(change.attributes) : null, timestamp(at), expected ?? null],
    ));
  } catch (error) {
    if (violates(error, DISPLAY_NAME_INDEX)) return { kind: 'taken', attribute: 'displayName' };
    throw error;
  }
  if (!row) {
    const current = await versionOf(db, organization, id);
    return current === undefined ? { kind: 'missing' } : { kind: 'stale', currentVersion: current };
  }
  let removed: string[] = [];
  let added: string[] = [];
  if (members && 'replace' in members) {
    removed = await removeMembersExcept(db, id, joining);
    added = await addMembers(db, organization, id, joining);
  } else if (members) {
    removed = await removeMembers(db, id, distinct(members.remove ?? []));
    added = await addMembers(db, organization, id, joining);
  }
  await appendChanges(db, [
    ...(change.attributes ? [groupChange(organization, 'updated', id, at)] : []),
    ...membershipChanges(organization, id, at, added, removed),
  ]);
  return { kind: 'written', resource: groupOf(row) };
}

export async function deleteGroup(
  db: Queryable,
  organization: string,
  id: string,
  expected: number | undefined,
  at: number,
): Promise<DeleteOutcome> {
  if (!isOurId(id)) return { kind: 'missing' };
  const { rowCount } = await db.query(
    `DELETE FROM gatehouse_directory_groups
      WHERE organization = $1 AND id = $2 AND ($3::integer IS NULL OR version = $3)`,
    [organization, id, expected ?? null],
  );
  if (!rowCount) {
    const current = await versionOf(db, organization, id);
    return current === undefined ? { kind: 'missing' } : { kind: 'stale', currentVersion: current };
  }
  await appendChanges(db, [{ organization, kind: 'deleted', resourceType: 'Group', resourceId: id, at }]);
  return { kind: 'deleted' };
}

export async function selectMembers(db: Queryable, organization: string, groupId: string): Promise<GroupMember[]> {
  if (!isOurId(groupId)) return [];
  const { rows } = await db.query<{ value: string; display: string | null }>(
    `SELECT m.user_id AS value, COALESCE(NULLIF(u.attributes ->> 'displayName', ''), u.user_name) AS display
       FROM gatehouse_directory_members m JOIN gatehouse_directory_users u ON u.id = m.user_id
      WHERE m.organization = $1 AND m.group_id = $2 AND u.deleted_at IS NULL
      ORDER BY m.added_order`,
    [organization, groupId],
  );
  return rows.map(({ value, display }) => (display === null ? { value } : { value, display }));
}

export async function selectGroupsOf(db: Queryable, organization: string, userId: string): Promise<DirectoryGroup[]> {
  if (!isOurId(userId)) return [];
  const { rows } = await db.query<ResourceRow>(
    `SELECT ${RESOURCE_COLUMNS}
       FROM gatehouse_directory_members m JOIN gatehouse_directory_groups r ON r.id = m.group_id
      WHERE m.organization = $1 AND m.user_id = $2 AND r.organization = $1
      ORDER BY r.created, r.creation_order`,
    [organization, userId],
  );
  return rows.map(groupOf);
}

/**
 * The ids that are no live user of the organization, in one statement whatever their number.
 * The live ones are locked FOR SHARE until the transaction ends, so that a user deleted
 * meanwhile cannot stay behind as a member: its delete waits for this write to commit, and
 * then removes the memberships just added.
 */
async function unknownMembers(db: Queryable, organization: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const ours = ids.filter(isOurId);
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM gatehouse_directory_users
      WHERE organization = $1 AND id = ANY($2::uuid[]) AND deleted_at IS NULL
      ORDER BY id FOR SHARE`,
    [organization, ours],
  );
  const known = new Set(rows.map((row) => row.id));
  return ids.filter((id) => !known.has(id));
}

/**
 * The most members one statement adds. A member costs its statement about 20 µs (its row,
 * three indexes, two foreign keys: 10,000 took 0.2 s, 40,000 0.9-1.2 s, measured), and the
 * largest body a PATCH may have holds about 40,000: in one statement, that came near the
 * statement timeout (catalog-pool.ts, 1.5 s), on a busy server past it. Each statement of
 * 5,000 stays a small part of it, and the change stays one transaction.
 */
export const MEMBERS_PER_STATEMENT = 5_000;

/** Adds the members not members yet, in the order given; answers those added. A statement per MEMBERS_PER_STATEMENT. */
async function addMembers(
  db: Queryable,
  organization: string,
  groupId: string,
  ids: readonly string[],
): Promise<string[]> {
  const added: string[] = [];
  for (let start = 0; start < ids.length; start += MEMBERS_PER_STATEMENT) {
    const batch = ids.slice(start, start + MEMBERS_PER_STATEMENT);
    const { rows } = await db.query<{ user_id: string }>(
      `INSERT INTO gatehouse_directory_members (group_id, user_id, organization)
       SELECT $1, t.user_id, $2 FROM unnest($3::uuid[]) WITH ORDINALITY AS t(user_id, n) ORDER BY t.n
       ON CONFLICT (group_id, user_id) DO NOTHING
       RETURNING user_id`,
      [groupId, organization, batch],
    );
    added.push(...inOrder(batch, rows));
  }
  return added;
}

async function removeMembers(db: Queryable, groupId: string, ids: readonly string[]): Promise<string[]> {
  const ours = ids.filter(isOurId);
  if (ours.length === 0) return [];
  const { rows } = await db.query<{ user_id: string }>(
    `DELETE FROM gatehouse_directory_members WHERE group_id = $1 AND user_id = ANY($2::uuid[]) RETURNING user_id`,
    [groupId, ours],
  );
  return inOrder(ours, rows);
}

/** Removes every member not in `ids` (a replace); answers those removed, in the order they had joined. */
async function removeMembersExcept(db: Queryable, groupId: string, ids: readonly string[]): Promise<string[]> {
  const { rows } = await db.query<{ user_id: string }>(
    `WITH gone AS (
       DELETE FROM gatehouse_directory_members WHERE group_id = $1 AND user_id <> ALL($2::uuid[])
       RETURNING user_id, added_order)
     SELECT user_id FROM gone ORDER BY added_order`,
    [groupId, ids],
  );
  return rows.map((row) => row.user_id);
}

/** Of `ids`, those the statement returned, in the order of `ids` (RETURNING promises none). */
function inOrder(ids: readonly string[], rows: readonly { user_id: string }[]): string[] {
  const returned = new Set(rows.map((row) => row.user_id));
  return ids.filter((id) => returned.has(id));
}

function distinct(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

async function versionOf(db: Queryable, organization: string, id: string): Promise<number | undefined> {
  const { rows } = await db.query<{ version: number }>(
    'SELECT version FROM gatehouse_directory_groups WHERE organization = $1 AND id = $2',
    [organization, id],
  );
  return rows[0]?.version;
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
