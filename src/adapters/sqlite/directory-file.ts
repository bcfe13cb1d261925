import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { GatehouseError, isGatehouseError } from '../../domain/errors.js';
import { reasonOf, resultCodeOf } from './directory-errors.js';
import { sqlFold } from './directory-rows.js';
import { prepareSchema } from './directory-schema.js';
import type { SqliteDatabase, SqliteDatabaseConstructor } from './node-sqlite.js';

/** SQLite's SQLITE_BUSY: another connection holds the lock. */
const BUSY = 5;

/** The directory's file, open, and the lock that makes this process its only user. */
export interface DirectoryFile {
  db: SqliteDatabase;
  /** Closes the database (SQLite folds its write-ahead log back into the file), then lets the lock go. */
  close(): void;
}

/**
 * Opens the embedded directory at `path` (absolute), made with its folder when absent.
 *
 * One process owns it: the store tells its subscribers of changes in-process, so a second
 * process writing the same file would change directories behind the first one's back. The
 * owner holds an exclusive lock on a small companion file, `<path>-lock` (SQLite's own file
 * locks, which the system lets go when the process ends, however it ends); a second store on
 * the file, in this process or another, is refused at open. The directory itself stays in
 * WAL mode without that lock, so SQLite's online backup (`sqlite3 <path> ".backup ..."`)
 * reads it while Gatehouse runs.
 *
 * The file holds people's names and addresses and the SCIM tokens' hashes: it is made
 * readable by its owner only (SQLite gives its -wal and -shm files the same mode).
 */
export function openDirectoryFile(DatabaseSync: SqliteDatabaseConstructor, path: string): DirectoryFile {
  const lock = opened(() => {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    makePrivately(path);
    // Private too: whoever can read the lock file can hold a shared lock on it, and stop the start.
    makePrivately(`${path}-lock`);
    return new DatabaseSync(`${path}-lock`);
  });
  try {
    opened(() => {
      lock.exec('PRAGMA locking_mode = EXCLUSIVE');
      // The lock file holds nothing: no journal file beside it.
      lock.exec('PRAGMA journal_mode = MEMORY');
      // A write under EXCLUSIVE locking takes the lock and keeps it until the connection closes.
      lock.exec('BEGIN EXCLUSIVE');
      lock.exec('COMMIT');
    });
  } catch (error) {
    lock.close();
    throw error;
  }
  let db: SqliteDatabase | undefined;
  try {
    db = opened(() => new DatabaseSync(path, { enableForeignKeyConstraints: true }));
    const open = db;
    opened(() => {
      open.exec('PRAGMA journal_mode = WAL');
      // Every commit reaches the disk before it is answered: a deprovisioning is never lost.
      open.exec('PRAGMA synchronous = FULL');
      open.function('directory_fold', { deterministic: true }, sqlFold);
      prepareSchema(open);
    });
  } catch (error) {
    db?.close();
    lock.close();
    throw error;
  }
  const database = db;
  return {
    db: database,
    close: () => {
      database.close();
      lock.close();
    },
  };
}

/** Creates the file empty, readable and writable by its owner only, unless it exists (SQLite takes an empty file as a new database). */
function makePrivately(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Runs a step of opening; SQLite's and the file system's errors become ours, naming a code, never a path or a message. */
function opened<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (isGatehouseError(error)) throw error;
    if (resultCodeOf(error) === BUSY) {
      throw new GatehouseError(
        'directory.file_in_use',
        'the directory file is held by another Gatehouse: the embedded store serves one instance at a time',
      );
    }
    throw new GatehouseError('directory.file_unusable', `the directory file cannot be opened (${reasonOf(error)})`);
  }
}
