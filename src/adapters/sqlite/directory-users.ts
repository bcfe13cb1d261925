import { randomUUID } from 'node:crypto';
import type {
  CreateOutcome,
  DeleteOutcome,
  DirectoryChangeKind,
  SignInMatch,
  WriteOutcome,
} from '../../application/ports/directory-store.js';
import type { DirectoryUser, UserAttributes } from '../../domain/directory/directory-resources.js';
import { appendChanges, type NewChange } from './directory-feed.js';
import {
  RESOURCE_COLUMNS,
  RETURNED_COLUMNS,
  fold,
  isOurId,
  list,
  millis,
  rowOf,
  rowsOf,
  run,
  userOf,
  type ResourceRow,
} from './directory-rows.js';
import type { SqliteDatabase } from './node-sqlite.js';

/*
 * Each write runs in the store's transaction, synchronously: nothing else touches the file
 * between its statements, so a check ("is this userName taken?") and the write it guards
 * need no lock of their own.
 */

export function selectUser(db: SqliteDatabase, organization: string, id: string): DirectoryUser | undefined {
  if (!isOurId(id)) return undefined;
  const row = rowOf<ResourceRow>(
    db,
    `SELECT ${RESOURCE_COLUMNS} FROM directory_users r WHERE r.organization = ? AND r.id = ? AND r.deleted_at IS NULL`,
    organization,
    id,
  );
  return row && userOf(row);
}

/**
 * Creates a user, unless its userName is a live user's (letter case ignored). The tombstones
 * it matches (userName or externalId) go: the person is back, and sign-ins find the new user.
 */
export function insertUser(
  db: SqliteDatabase,
  organization: string,
  attributes: UserAttributes,
  at: number,
): CreateOutcome<DirectoryUser> {
  if (userNameTaken(db, organization, attributes.userName, undefined)) return { kind: 'taken', attribute: 'userName' };
  run(
    db,
    `DELETE FROM directory_users
      WHERE organization = ? AND deleted_at IS NOT NULL AND (user_name_key = ? OR external_id = ?)`,
    organization,
    fold(attributes.userName),
    attributes.externalId ?? null,
  );
  const id = randomUUID();
  const row = rowOf<ResourceRow>(
    db,
    `INSERT INTO directory_users
       (id, organization, attributes, user_name, user_name_key, external_id, active, version, created, last_modified)
     VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
     RETURNING ${RETURNED_COLUMNS}`,
    id,
    organization,
    JSON.stringify(attributes),
    ...searchedColumns(attributes),
    millis(at),
    millis(at),
  )!;
  writeEmails(db, organization, id, attributes);
  appendChanges(db, [userChange(organization, 'created', id, at)]);
  return { kind: 'written', resource: userOf(row) };
}

/** Replaces a live user's attributes if it is at `expected` (missing, then stale, then taken: as PostgreSQL's store says). */
export function updateUser(
  db: SqliteDatabase,
  organization: string,
  id: string,
  attributes: UserAttributes,
  expected: number | undefined,
  at: number,
): WriteOutcome<DirectoryUser> {
  const before = liveUser(db, organization, id);
  if (!before) return { kind: 'missing' };
  if (expected !== undefined && before.version !== expected) return { kind: 'stale', currentVersion: before.version };
  if (userNameTaken(db, organization, attributes.userName, id)) return { kind: 'taken', attribute: 'userName' };
  const row = rowOf<ResourceRow>(
    db,
    `UPDATE directory_users
        SET attributes = ?, user_name = ?, user_name_key = ?, external_id = ?, active = ?,
            version = version + 1, last_modified = ?
      WHERE organization = ? AND id = ? AND deleted_at IS NULL
      RETURNING ${RETURNED_COLUMNS}`,
    JSON.stringify(attributes),
    ...searchedColumns(attributes),
    millis(at),
    organization,
    id,
  )!;
  run(db, 'DELETE FROM directory_user_emails WHERE user_id = ?', id);
  writeEmails(db, organization, id, attributes);
  const wasActive = before.active === 1;
  const kind: DirectoryChangeKind =
    wasActive && !attributes.active ? 'deactivated' : !wasActive && attributes.active ? 'reactivated' : 'updated';
  appendChanges(db, [userChange(organization, kind, id, at)]);
  return { kind: 'written', resource: userOf(row) };
}

/**
 * Makes a live user a tombstone if it is at `expected`, and takes it out of its groups (each
 * group one version more, and a `group_membership` change saying it left).
 */
export function tombstoneUser(
  db: SqliteDatabase,
  organization: string,
  id: string,
  expected: number | undefined,
  at: number,
): DeleteOutcome {
  const current = liveUser(db, organization, id);
  if (!current) return { kind: 'missing' };
  if (expected !== undefined && current.version !== expected) return { kind: 'stale', currentVersion: current.version };
  run(
    db,
    `UPDATE directory_users SET deleted_at = ?, last_modified = ?, version = version + 1
      WHERE organization = ? AND id = ?`,
    millis(at),
    millis(at),
    organization,
    id,
  );
  const groupIds = rowsOf<{ group_id: string }>(
    db,
    'DELETE FROM directory_members WHERE organization = ? AND user_id = ? RETURNING group_id',
    organization,
    id,
  )
    .map((row) => row.group_id)
    .sort();
  if (groupIds.length > 0) {
    run(
      db,
      `UPDATE directory_groups SET version = version + 1, last_modified = ?
        WHERE organization = ? AND id IN (SELECT value FROM json_each(?))`,
      millis(at),
      organization,
      list(groupIds),
    );
  }
  appendChanges(db, [
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

/** userName, its folded key, externalId and active: the columns searched, from the attributes they are kept beside. */
function searchedColumns(attributes: UserAttributes): [string, string, string | null, number] {
  return [attributes.userName, fold(attributes.userName), attributes.externalId ?? null, attributes.active ? 1 : 0];
}

/** The user's e-mail addresses, folded, one row each: what `emails.value eq` and a sign-in's e-mails look up. */
function writeEmails(db: SqliteDatabase, organization: string, id: string, attributes: UserAttributes): void {
  const values = Array.isArray(attributes.emails)
    ? attributes.emails.flatMap((email) => (typeof email?.value === 'string' ? [fold(email.value)] : []))
    : [];
  if (values.length === 0) return;
  run(
    db,
    `INSERT OR IGNORE INTO directory_user_emails (user_id, organization, value_key)
     SELECT ?, ?, value FROM json_each(?)`,
    id,
    organization,
    list(values),
  );
}

function userNameTaken(
  db: SqliteDatabase,
  organization: string,
  userName: string,
  except: string | undefined,
): boolean {
  return (
    rowOf(
      db,
      `SELECT 1 FROM directory_users
        WHERE organization = ? AND user_name_key = ? AND deleted_at IS NULL AND id IS NOT ?`,
      organization,
      fold(userName),
      except ?? null,
    ) !== undefined
  );
}

function liveUser(
  db: SqliteDatabase,
  organization: string,
  id: string,
): { version: number; active: number } | undefined {
  if (!isOurId(id)) return undefined;
  return rowOf<{ version: number; active: number }>(
    db,
    'SELECT version, active FROM directory_users WHERE organization = ? AND id = ? AND deleted_at IS NULL',
    organization,
    id,
  );
}

function userChange(organization: string, kind: DirectoryChangeKind, id: string, at: number): NewChange {
  return { organization, kind, resourceType: 'User', resourceId: id, at };
}

/**
 * The user a sign-in is: those matching a subject (userName without regard to case, or
 * externalId exactly) before those matching an e-mail; within each, live before tombstones,
 * then the most recently deleted, then the oldest. Each condition is an index's.
 */
export function selectSignInMatch(
  db: SqliteDatabase,
  organization: string,
  who: { subjects: readonly string[]; emails: readonly string[] },
): SignInMatch | undefined {
  const row = rowOf<{ id: string; active: number; deleted: number }>(
    db,
    `SELECT u.id, u.active, u.deleted_at IS NOT NULL AS deleted,
            (u.user_name_key IN (SELECT value FROM json_each(?2)) OR u.external_id IN (SELECT value FROM json_each(?3)))
              AS by_subject
       FROM directory_users u
      WHERE u.organization = ?1
        AND (u.user_name_key IN (SELECT value FROM json_each(?2))
             OR u.external_id IN (SELECT value FROM json_each(?3))
             OR u.id IN (SELECT e.user_id FROM directory_user_emails e
                          WHERE e.organization = ?1 AND e.value_key IN (SELECT value FROM json_each(?4))))
      ORDER BY by_subject DESC, deleted, u.deleted_at DESC, u.created, u.creation_order
      LIMIT 1`,
    organization,
    list(who.subjects.map(fold)),
    list([...who.subjects]),
    list(who.emails.map(fold)),
  );
  if (!row) return undefined;
  return { userId: row.id, state: row.deleted ? 'deleted' : row.active ? 'active' : 'inactive' };
}

/** Remembers a sign-in of a user of the organization (live or not); nothing for another's id. */
export function insertSignIn(
  db: SqliteDatabase,
  organization: string,
  userId: string,
  provider: string,
  subject: string,
  at: number,
): void {
  if (!isOurId(userId)) return;
  run(
    db,
    `INSERT INTO directory_sign_ins (user_id, organization, provider, subject, signed_in_at)
     SELECT id, organization, ?, ?, ? FROM directory_users WHERE organization = ? AND id = ?
     ON CONFLICT (user_id, provider, subject) DO UPDATE SET signed_in_at = excluded.signed_in_at`,
    provider,
    subject,
    millis(at),
    organization,
    userId,
  );
}

/** The user a sign-in by `provider` and `subject` was recorded for: a live one first, then the latest sign-in. */
export function selectRecordedSignIn(
  db: SqliteDatabase,
  organization: string,
  provider: string,
  subject: string,
): SignInMatch | undefined {
  const row = rowOf<{ id: string; active: number; deleted: number }>(
    db,
    `SELECT u.id, u.active, u.deleted_at IS NOT NULL AS deleted
       FROM directory_sign_ins s
       JOIN directory_users u ON u.id = s.user_id AND u.organization = s.organization
      WHERE s.organization = ? AND s.provider = ? AND s.subject = ?
      ORDER BY u.deleted_at IS NOT NULL, s.signed_in_at DESC
      LIMIT 1`,
    organization,
    provider,
    subject,
  );
  if (!row) return undefined;
  return { userId: row.id, state: row.deleted ? 'deleted' : row.active ? 'active' : 'inactive' };
}

export function selectSignIns(
  db: SqliteDatabase,
  organization: string,
  userId: string,
): { provider: string; subject: string }[] {
  if (!isOurId(userId)) return [];
  return rowsOf<{ provider: string; subject: string }>(
    db,
    `SELECT provider, subject FROM directory_sign_ins WHERE organization = ? AND user_id = ? ORDER BY provider, subject`,
    organization,
    userId,
  ).map(({ provider, subject }) => ({ provider, subject }));
}
