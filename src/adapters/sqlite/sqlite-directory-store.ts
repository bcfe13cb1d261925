import type {
  CreateOutcome,
  DeleteOutcome,
  DirectoryChange,
  DirectoryPage,
  DirectoryQuery,
  DirectoryStore,
  GroupChange,
  SignInMatch,
  StoredScimToken,
  WriteOutcome,
} from '../../application/ports/directory-store.js';
import type { Logger } from '../../application/ports/logger.js';
import type { GroupAttribute, UserAttribute } from '../../domain/directory/directory-filter.js';
import type {
  DirectoryGroup,
  DirectoryUser,
  GroupAttributes,
  GroupMember,
  UserAttributes,
} from '../../domain/directory/directory-resources.js';
import { GatehouseError } from '../../domain/errors.js';
import { DirectoryUnavailable, directoryError, isUnusable, reasonOf } from './directory-errors.js';
import { deleteChangesBefore, selectChangesAfter, selectLatestPosition } from './directory-feed.js';
import { openDirectoryFile, type DirectoryFile } from './directory-file.js';
import {
  deleteGroup,
  insertGroup,
  selectGroup,
  selectGroupsOf,
  selectMembers,
  updateGroup,
} from './directory-groups.js';
import { findGroups, findUsers } from './directory-pages.js';
import { deleteToken, insertToken, selectTokenByHash, selectTokens, touchToken } from './directory-tokens.js';
import {
  insertSignIn,
  insertUser,
  selectRecordedSignIn,
  selectSignIns,
  selectSignInMatch,
  selectUser,
  tombstoneUser,
  updateUser,
} from './directory-users.js';
import { DirectoryWatch } from './directory-watch.js';
import { SearchBudget } from './search-budget.js';
import { loadNodeSqlite, type SqliteDatabase } from './node-sqlite.js';

export interface SqliteDirectoryStoreOptions {
  /** The file, absolute; made with its folder when absent. */
  file: string;
  logger: Logger;
  /** Each organization's share of slow searches, in milliseconds a minute (search-budget.ts); 3,000 when not given. */
  searchMsPerMinute?: number;
}

/** `Directory:EmbeddedSearchMsPerMinute`'s default. */
export const DEFAULT_SEARCH_MS_PER_MINUTE = 3_000;

/**
 * The organizations' directories in one SQLite file, through Node's built-in `node:sqlite`
 * (Node 22.13 and later): directory sync without PostgreSQL, for one instance. Its tables
 * are made at open and versioned (directory-schema.ts); the file is locked to this process
 * (directory-file.ts). Each write is one transaction, its changes appended to the feed
 * before it commits, and subscribers are told in-process once it has (directory-watch.ts).
 * node:sqlite is synchronous: each call runs to its end on the event loop, so no other call
 * comes between a write's check and its statements. A file that cannot be used (the disk
 * full, an I/O error) rejects with DirectoryUnavailable (`catalog.unavailable`), and the log
 * says so once, and once more when it is usable again.
 */
export class SqliteDirectoryStore implements DirectoryStore {
  readonly #file: DirectoryFile;
  readonly #db: SqliteDatabase;
  readonly #logger: Logger;
  readonly #watch = new DirectoryWatch();
  readonly #searches: SearchBudget;
  #reportedLost = false;
  #closed = false;

  private constructor(file: DirectoryFile, logger: Logger, searchMsPerMinute: number) {
    this.#file = file;
    this.#db = file.db;
    this.#logger = logger;
    this.#searches = new SearchBudget(searchMsPerMinute);
  }

  /**
   * Opens the store on its file. Rejects with a GatehouseError: `directory.embedded_unavailable`
   * (a Node without node:sqlite), `directory.file_in_use` (another store holds the file),
   * `directory.file_newer` (a newer Gatehouse's schema), `directory.file_foreign` (another
   * program's database), `directory.file_unusable` (the file or its folder cannot be opened).
   */
  static async open(options: SqliteDirectoryStoreOptions): Promise<SqliteDirectoryStore> {
    const DatabaseSync = await loadNodeSqlite();
    if (!DatabaseSync) {
      throw new GatehouseError(
        'directory.embedded_unavailable',
        'this Node.js has no node:sqlite, which the embedded directory store needs (Node.js 22.13 or later)',
      );
    }
    return new SqliteDirectoryStore(
      openDirectoryFile(DatabaseSync, options.file),
      options.logger,
      options.searchMsPerMinute ?? DEFAULT_SEARCH_MS_PER_MINUTE,
    );
  }

  createUser(organization: string, attributes: UserAttributes, at: number): Promise<CreateOutcome<DirectoryUser>> {
    return this.#transaction((db) => insertUser(db, organization, attributes, at));
  }

  getUser(organization: string, id: string): Promise<DirectoryUser | undefined> {
    return this.#statements((db) => selectUser(db, organization, id));
  }

  findUsers(organization: string, query: DirectoryQuery<UserAttribute>): Promise<DirectoryPage<DirectoryUser>> {
    return this.#search(organization, (db) => findUsers(db, organization, query));
  }

  replaceUser(
    organization: string,
    id: string,
    attributes: UserAttributes,
    expected: number | undefined,
    at: number,
  ): Promise<WriteOutcome<DirectoryUser>> {
    return this.#transaction((db) => updateUser(db, organization, id, attributes, expected, at));
  }

  deleteUser(organization: string, id: string, expected: number | undefined, at: number): Promise<DeleteOutcome> {
    return this.#transaction((db) => tombstoneUser(db, organization, id, expected, at));
  }

  createGroup(
    organization: string,
    attributes: GroupAttributes,
    members: readonly string[],
    at: number,
  ): Promise<CreateOutcome<DirectoryGroup>> {
    return this.#transaction((db) => insertGroup(db, organization, attributes, members, at));
  }

  getGroup(organization: string, id: string): Promise<DirectoryGroup | undefined> {
    return this.#statements((db) => selectGroup(db, organization, id));
  }

  findGroups(organization: string, query: DirectoryQuery<GroupAttribute>): Promise<DirectoryPage<DirectoryGroup>> {
    return this.#search(organization, (db) => findGroups(db, organization, query));
  }

  membersOf(organization: string, groupId: string): Promise<GroupMember[]> {
    return this.#statements((db) => selectMembers(db, organization, groupId));
  }

  groupsOf(organization: string, userId: string): Promise<DirectoryGroup[]> {
    return this.#statements((db) => selectGroupsOf(db, organization, userId));
  }

  changeGroup(
    organization: string,
    id: string,
    change: GroupChange,
    expected: number | undefined,
    at: number,
  ): Promise<WriteOutcome<DirectoryGroup>> {
    return this.#transaction((db) => updateGroup(db, organization, id, change, expected, at));
  }

  deleteGroup(organization: string, id: string, expected: number | undefined, at: number): Promise<DeleteOutcome> {
    return this.#transaction((db) => deleteGroup(db, organization, id, expected, at));
  }

  signInMatch(
    organization: string,
    who: { subjects: readonly string[]; emails: readonly string[] },
  ): Promise<SignInMatch | undefined> {
    return this.#statements((db) => selectSignInMatch(db, organization, who));
  }

  recordSignIn(organization: string, userId: string, provider: string, subject: string, at: number): Promise<void> {
    return this.#statements((db) => insertSignIn(db, organization, userId, provider, subject, at));
  }

  signInsOf(organization: string, userId: string): Promise<{ provider: string; subject: string }[]> {
    return this.#statements((db) => selectSignIns(db, organization, userId));
  }

  recordedSignIn(organization: string, provider: string, subject: string): Promise<SignInMatch | undefined> {
    return this.#statements((db) => selectRecordedSignIn(db, organization, provider, subject));
  }

  changesAfter(position: string | undefined, limit: number): Promise<DirectoryChange[]> {
    return this.#statements((db) => selectChangesAfter(db, position, limit));
  }

  latestPosition(): Promise<string | undefined> {
    return this.#statements(selectLatestPosition);
  }

  removeChangesBefore(before: number, limit: number): Promise<number> {
    return this.#statements((db) => deleteChangesBefore(db, before, limit));
  }

  watch(onChanged: () => void): () => void {
    return this.#watch.add(onChanged);
  }

  addToken(organization: string, token: StoredScimToken): Promise<void> {
    return this.#statements((db) => insertToken(db, organization, token));
  }

  tokensOf(organization: string): Promise<StoredScimToken[]> {
    return this.#statements((db) => selectTokens(db, organization));
  }

  removeToken(organization: string, id: string): Promise<boolean> {
    return this.#statements((db) => deleteToken(db, organization, id));
  }

  tokenByHash(hash: string): Promise<(StoredScimToken & { organization: string }) | undefined> {
    return this.#statements((db) => selectTokenByHash(db, hash));
  }

  markTokenUsed(organization: string, id: string, at: number): Promise<void> {
    return this.#statements((db) => touchToken(db, organization, id, at));
  }

  /** Idempotent. Closing lets the file go: another store (the next start) may open it. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#watch.stop();
    this.#file.close();
  }

  /** Runs statements outside a transaction (reads, and writes of one statement); node:sqlite's errors become the port's. */
  async #statements<T>(work: (db: SqliteDatabase) => T): Promise<T> {
    try {
      const result = work(this.#db);
      this.#usable(true);
      return result;
    } catch (error) {
      throw this.#failed(error);
    }
  }

  /**
   * Runs a search of the organization's, within its share of slow searches (search-budget.ts):
   * refused with `directory.busy` (429, Retry-After) once the share is spent, its time spent
   * from the share when it was slow. Another organization's searches go on.
   */
  async #search<T>(organization: string, work: (db: SqliteDatabase) => T): Promise<T> {
    const retryAfterMs = this.#searches.retryAfterMs(organization);
    if (retryAfterMs > 0) {
      throw new GatehouseError(
        'directory.busy',
        "This organization's searches that no index serves have used their share of the directory store for now; try again after the time in Retry-After, or search by userName, externalId, an e-mail or displayName eq.",
        { safe: true, retryAfterMs },
      );
    }
    const started = performance.now();
    try {
      return await this.#statements(work);
    } finally {
      this.#searches.spend(organization, performance.now() - started);
    }
  }

  /**
   * Runs `work` in one transaction, committed only when it wrote (a refusal, stale or taken,
   * leaves nothing behind); the watch hears of each commit.
   */
  async #transaction<T extends { kind: string }>(work: (db: SqliteDatabase) => T): Promise<T> {
    try {
      this.#db.exec('BEGIN IMMEDIATE');
      let outcome: T;
      try {
        outcome = work(this.#db);
      } catch (error) {
        this.#rollBack();
        throw error;
      }
      const commits = outcome.kind === 'written' || outcome.kind === 'deleted';
      this.#db.exec(commits ? 'COMMIT' : 'ROLLBACK');
      if (commits) this.#watch.committed();
      this.#usable(true);
      return outcome;
    } catch (error) {
      throw this.#failed(error);
    }
  }

  #rollBack(): void {
    try {
      this.#db.exec('ROLLBACK');
    } catch {
      // SQLite rolls back by itself after some errors (a full disk): there is none left to end.
    }
  }

  #failed(error: unknown): Error {
    if (this.#closed) return new DirectoryUnavailable();
    if (isUnusable(error)) this.#usable(false, error);
    return directoryError(error);
  }

  /** One line when the file cannot be used, one when it can again: a code, never a message or a value. */
  #usable(usable: boolean, error?: unknown): void {
    if (usable !== this.#reportedLost) return;
    this.#reportedLost = !usable;
    if (usable) this.#logger.info({}, 'the directory store (embedded SQLite file) can be used again');
    else
      this.#logger.error(
        error === undefined ? {} : { reason: reasonOf(error) },
        'the directory store (embedded SQLite file) cannot be used; SCIM requests are refused until it can',
      );
  }
}
