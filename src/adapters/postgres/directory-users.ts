import { randomUUID } from 'node:crypto';
import type {
  CreateOutcome,
  DeleteOutcome,
  DirectoryChangeKind,
  SignInMatch,
  WriteOutcome,
} from '../../application/ports/directory-store.js';
import type { DirectoryUser, UserAttributes } from '../../domain/directory/directory-resources.js';
import { violates } from './directory-errors.js';
import { appendChanges, type NewChange, type Queryable } from './directory-feed.js';
import { RESOURCE_COLUMNS, isOurId, timestamp, userOf, type ResourceRow } from './directory-rows.js';

/** The unique index of live userNames (migrations/0002_directory.sql). */
const USER_NAME_INDEX = 'gatehouse_directory_users_user_name';

export async function selectUser(db: Queryable, organization: string, id: string): Promise<DirectoryUser | undefined> {
  if (!isOurId(id)) return undefined;
  const { rows } = await db.query<ResourceRow>(
    `SELECT ${RESOURCE_COLUMNS} FROM gatehouse_directory_users r
      WHERE r.organization = $1 AND r.id = $2 AND r.deleted_at IS NULL`,
    [organization, id],
  );
  const row = rows[0];
  return row && userOf(row);
}

/**
 * Creates a user, unless its userName is a live user's (the unique index decides, even
 * against a concurrent create: ON CONFLICT waits for it to commit). The tombstones it matches
 * (userName or externalId) go: the person is back, and sign-ins find the new user.
 */
export async function insertUser(
  db: Queryable,
  organization: string,
  attributes: UserAttributes,
  at: number,
): Promise<CreateOutcome<DirectoryUser>> {
  const { rows } = await db.query<ResourceRow>(
    `INSERT INTO gatehouse_directory_users AS r (id, organization, attributes, version, created, last_modified)
     VALUES ($1, $2, $3, 1, $4, $4)
     ON CONFLICT (organization, lower(user_name)) WHERE deleted_at IS NULL DO NOTHING
     RETURNING ${RESOURCE_COLUMNS}`,
    [randomUUID(), organization, JSON.stringify(attributes), timestamp(at)],
  );
  const row = rows[0];
  if (!row) return { kind: 'taken', attribute: 'userName' };
  await db.query(
    `DELETE FROM gatehouse_directory_users
      WHERE organization = $1 AND deleted_at IS NOT NULL AND (lower(user_name) = lower($2) OR external_id = $3)`,
    [organization, attributes.userName, attributes.externalId ?? null],
  );
  await appendChanges(db, [userChange(organization, 'created', row.id, at)]);
  return { kind: 'written', resource: userOf(row) };
}

/**
 * Replaces a live user's attributes if it is at `expected`. The row is locked first (what it
 * was: whether `active` turns, the current version for a refusal), and the UPDATE checks the
 * version again as its own condition.
 */
export async function updateUser(
  db: Queryable,
  organization: string,
  id: string,
  attributes: UserAttributes,
  expected: number | undefined,
  at: number,
): Promise<WriteOutcome<DirectoryUser>> {
  const before = await lockLiveUser(db, organization, id);
  if (!before) return { kind: 'missing' };
  let row: ResourceRow | undefined;
  try {
    ({
      rows: [row],
    } = await db.query<ResourceRow>(
      `UPDATE gatehouse_directory_users r SET attributes = $3, version = r.version + 1, last_modified = $4
        WHERE r.organization = $1 AND r.id = $2 AND r.deleted_at IS NULL AND ($5::integer IS NULL OR r.version = $5)
        RETURNING ${RESOURCE_COLUMNS}`,
      [organization, id, JSON.stringify(attributes), timestamp(at), expected ?? null],
    ));
  } catch (error) {
    if (violates(error, USER_NAME_INDEX)) return { kind: 'taken', attribute: 'userName' };
    throw error;
  }
  if (!row) return { kind: 'stale', currentVersion: before.version };
  const kind: DirectoryChangeKind =
    before.active && !attributes.active
      ? 'deactivated'
      : !before.active && attributes.active
        ? 'reactivated'
        : 'updated';
  await appendChanges(db, [userChange(organization, kind, id, at)]);
  return { kind: 'written', resource: userOf(row) };
}

/**
 * Makes a live user a tombstone if it is at `expected`, and takes it out of its groups (each
 * group one version more, and a `group_membership` change saying it left).
 */
export async function tombstoneUser(
  db: Queryable,
  organization: string,
  id: string,
  expected: number | undefined,
  at: number,
): Promise<DeleteOutcome> {
  if (!isOurId(id)) return { kind: 'missing' };
  const { rowCount } = await db.query(
    `UPDATE gatehouse_directory_users SET deleted_at = $3, last_modified = $3, version = version + 1
      WHERE organization = $1 AND id = $2 AND deleted_at IS NULL AND ($4::integer IS NULL OR version = $4)`,
    [organization, id, timestamp(at), expected ?? null],
  );
  if (!rowCount) {
    const current = await lockLiveUser(db, organization, id);
    return current ? { kind: 'stale', currentVersion: current.version } : { kind: 'missing' };
  }
  const { rows: groups } = await db.query<{ group_id: string }>(
    `DELETE FROM gatehouse_directory_members WHERE organization = $1 AND user_id = $2 RETURNING group_id`,
    [organization, id],
  );
  const groupIds = groups.map((group) => group.group_id).sort();
  if (groupIds.length > 0) {
    await db.query(
      `UPDATE gatehouse_directory_groups SET version = version + 1, last_modified = $3
        WHERE organization = $1 AND id = ANY($2::uuid[])`,
      [organization, groupIds, timestamp(at)],
    );
  }
  await appendChanges(db, [
    ...groupIds.map((groupId): NewChange => ({
      organization,
      kind: 'group_membership',
      resourceType: 'Group',
      resourceId: groupId,
      at,
      members: { added: [], removed: [id] },
    })),
    userChange(organization, 'deleted', id, at),
  ]);
  return { kind: 'deleted' };
}

async function lockLiveUser(
  db: Queryable,
  organization: string,
  id: string,
): Promise<{ version: number; active: boolean } | undefined> {
  if (!isOurId(id)) return undefined;
  const { rows } = await db.query<{ version: number; active: boolean }>(
    `SELECT version, active FROM gatehouse_directory_users
      WHERE organization = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE`,
    [organization, id],
  );
  return rows[0];
}

function userChange(organization: string, kind: DirectoryChangeKind, id: string, at: number): NewChange {
  return { organization, kind, resourceType: 'User', resourceId: id, at };
}

/**
 * The user a sign-in is: those matching a subject (userName without regard to case, or
 * externalId exactly) before those matching an e-mail; within each, live before tombstones,
 * then the oldest (the most recently deleted tombstone). Each condition is an index's.
 */
export async function selectSignInMatch(
  db: Queryable,
  organization: string,
  who: { subjects: readonly string[]; emails: readonly string[] },
): Promise<SignInMatch | undefined> {
  const { rows } = await db.query<{ id: string; active: boolean; deleted: boolean }>(
    `SELECT u.id, u.active, u.deleted_at IS NOT NULL AS deleted
       FROM gatehouse_directory_users u
      WHERE u.organization = $1
        AND (lower(u.user_name) = ANY(ARRAY(SELECT lower(s) FROM unnest($2::text[]) s))
             OR u.external_id = ANY($2::text[])
             OR u.email_values && ARRAY(SELECT lower(e) FROM unnest($3::text[]) e))
      ORDER BY COALESCE(lower(u.user_name) = ANY(ARRAY(SELECT lower(s) FROM unnest($2::text[]) s))
                        OR u.external_id = ANY($2::text[]), FALSE) DESC,
               u.deleted_at IS NOT NULL, u.deleted_at DESC, u.created, u.creation_order
      LIMIT 1`,
    [organization, [...who.subjects], [...who.emails]],
  );
  const row = rows[0];
  if (!row) return undefined;
  return { userId: row.id, state: row.deleted ? 'deleted' : row.active ? 'active' : 'inactive' };
}

/** Remembers a sign-in of a user of the organization (live or not); nothing for another's id. */
export async function insertSignIn(
  db: Queryable,
  organization: string,
  userId: string,
  provider: string,
  subject: string,
  at: number,
): Promise<void> {
  if (!isOurId(userId)) return;
  await db.query(
    `INSERT INTO gatehouse_directory_sign_ins (user_id, organization, provider, subject, signed_in_at)
     SELECT id, organization, $3, $4, $5 FROM gatehouse_directory_users WHERE organization = $1 AND id = $2
     ON CONFLICT (user_id, provider, subject) DO UPDATE SET signed_in_at = EXCLUDED.signed_in_at`,
    [organization, userId, provider, subject, timestamp(at)],
  );
}

/** The user a sign-in by `provider` and `subject` was recorded for: a live one first, then the latest sign-in. */
export async function selectRecordedSignIn(
  db: Queryable,
  organization: string,
  provider: string,
  subject: string,
): Promise<SignInMatch | undefined> {
  const { rows } = await db.query<{ id: string; active: boolean; deleted: boolean }>(
    `SELECT u.id, u.active, u.deleted_at IS NOT NULL AS deleted
       FROM gatehouse_directory_sign_ins s
       JOIN gatehouse_directory_users u ON u.id = s.user_id AND u.organization = s.organization
      WHERE s.organization = $1 AND s.provider = $2 AND s.subject = $3
      ORDER BY u.deleted_at IS NOT NULL, s.signed_in_at DESC
      LIMIT 1`,
    [organization, provider, subject],
  );
  const row = rows[0];
  if (!row) return undefined;
  return { userId: row.id, state: row.deleted ? 'deleted' : row.active ? 'active' : 'inactive' };
}

export async function selectSignIns(
  db: Queryable,
  organization: string,
  userId: string,
): Promise<{ provider: string; subject: string }[]> {
  if (!isOurId(userId)) return [];
  const { rows } = await db.query<{ provider: string; subject: string }>(
    `SELECT provider, subject FROM gatehouse_directory_sign_ins
      WHERE organization = $1 AND user_id = $2 ORDER BY provider, subject`,
    [organization, userId],
  );
  return rows.map(({ provider, subject }) => ({ provider, subject }));
}
