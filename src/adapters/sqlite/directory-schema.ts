import { GatehouseError } from '../../domain/errors.js';
import type { SqliteDatabase } from './node-sqlite.js';

/** The version of the tables below, kept in the file's `PRAGMA user_version`. */
export const SCHEMA_VERSION = 1;

/** Marks the file as Gatehouse's directory (`PRAGMA application_id`, "GHdr"): another program's database is refused. */
export const APPLICATION_ID = 0x4748_6472;

/*
 * The organizations' directories (src/application/ports/directory-store.ts), the same rows as
 * the PostgreSQL store's (src/adapters/postgres/migrations/0002_directory.sql). Times are
 * milliseconds since the epoch. The columns searched are written by the store beside the
 * JSON attributes they come from, in the same statement: `*_key` columns are the value with
 * letter case folded by JavaScript (directory-rows.ts, `fold`), so that no index depends on a
 * function of ours and the file stays readable and checkable by any SQLite tool.
 */
const TABLES = `
CREATE TABLE directory_users (
  creation_order INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  organization TEXT NOT NULL,
  attributes TEXT NOT NULL CHECK (json_valid(attributes) AND json_type(attributes) = 'object'),
  user_name TEXT NOT NULL,
  user_name_key TEXT NOT NULL,
  external_id TEXT,
  active INTEGER NOT NULL CHECK (active IN (0, 1)),
  version INTEGER NOT NULL CHECK (version > 0),
  created INTEGER NOT NULL,
  last_modified INTEGER NOT NULL,
  deleted_at INTEGER
) STRICT;
CREATE UNIQUE INDEX directory_users_user_name ON directory_users (organization, user_name_key) WHERE deleted_at IS NULL;
CREATE INDEX directory_users_user_name_any ON directory_users (organization, user_name_key);
CREATE INDEX directory_users_external_id ON directory_users (organization, external_id);
CREATE INDEX directory_users_created ON directory_users (organization, created) WHERE deleted_at IS NULL;

CREATE TABLE directory_user_emails (
  user_id TEXT NOT NULL REFERENCES directory_users (id) ON DELETE CASCADE,
  organization TEXT NOT NULL,
  value_key TEXT NOT NULL,
  PRIMARY KEY (user_id, value_key)
) STRICT;
CREATE INDEX directory_user_emails_value ON directory_user_emails (organization, value_key);

CREATE TABLE directory_groups (
  creation_order INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  organization TEXT NOT NULL,
  attributes TEXT NOT NULL CHECK (json_valid(attributes) AND json_type(attributes) = 'object'),
  display_name TEXT NOT NULL,
  display_name_key TEXT NOT NULL,
  external_id TEXT,
  version INTEGER NOT NULL CHECK (version > 0),
  created INTEGER NOT NULL,
  last_modified INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX directory_groups_display_name ON directory_groups (organization, display_name_key);
CREATE INDEX directory_groups_external_id ON directory_groups (organization, external_id);
CREATE INDEX directory_groups_created ON directory_groups (organization, created);

CREATE TABLE directory_members (
  added_order INTEGER PRIMARY KEY,
  group_id TEXT NOT NULL REFERENCES directory_groups (id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES directory_users (id) ON DELETE CASCADE,
  organization TEXT NOT NULL,
  UNIQUE (group_id, user_id)
) STRICT;
CREATE INDEX directory_members_order ON directory_members (group_id, added_order);
CREATE INDEX directory_members_user ON directory_members (user_id);

CREATE TABLE directory_sign_ins (
  user_id TEXT NOT NULL REFERENCES directory_users (id) ON DELETE CASCADE,
  organization TEXT NOT NULL,
  provider TEXT NOT NULL,
  subject TEXT NOT NULL,
  signed_in_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, provider, subject)
) STRICT;
CREATE INDEX directory_sign_ins_subject ON directory_sign_ins (organization, provider, subject);

CREATE TABLE directory_changes (
  position INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  organization TEXT NOT NULL,
  kind TEXT NOT NULL
    CHECK (kind IN ('created', 'updated', 'deactivated', 'reactivated', 'deleted', 'group_membership')),
  resource_type TEXT NOT NULL CHECK (resource_type IN ('User', 'Group')),
  resource_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  members TEXT CHECK (members IS NULL OR json_valid(members))
) STRICT;
CREATE INDEX directory_changes_at ON directory_changes (at, position);

CREATE TABLE directory_tokens (
  organization TEXT NOT NULL,
  id TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE CHECK (length(hash) = 64 AND hash NOT GLOB '*[^0-9a-f]*'),
  created_at INTEGER NOT NULL,
  last_used_at INTEGER,
  PRIMARY KEY (organization, id)
) STRICT;
`;

/**
 * Makes the tables in a new file, or checks an existing one is a directory of this schema.
 * A file of a newer version is refused rather than read: its rows may mean what this version
 * does not know. A file of another program (its own application id, or tables without ours)
 * is refused too. Runs in one transaction: a file is never left half made.
 */
export function prepareSchema(db: SqliteDatabase): void {
  const applicationId = pragma(db, 'application_id');
  const version = pragma(db, 'user_version');
  if (applicationId !== APPLICATION_ID && (applicationId !== 0 || version !== 0 || hasTables(db))) {
    throw new GatehouseError('directory.file_foreign', 'the file is not a Gatehouse directory');
  }
  if (version > SCHEMA_VERSION) {
    throw new GatehouseError(
      'directory.file_newer',
      `the file was written by a newer Gatehouse (directory schema ${version}; this one reads up to ${SCHEMA_VERSION})`,
    );
  }
  if (version === SCHEMA_VERSION) return;
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(TABLES);
    db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}

function pragma(db: SqliteDatabase, name: 'application_id' | 'user_version'): number {
  const row = db.prepare(`PRAGMA ${name}`).get();
  const value = typeof row === 'object' && row !== null && name in row ? (row as Record<string, unknown>)[name] : 0;
  return typeof value === 'number' ? value : 0;
}

function hasTables(db: SqliteDatabase): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' LIMIT 1`).get() !== undefined;
}
