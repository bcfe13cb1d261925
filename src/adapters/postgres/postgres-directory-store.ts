import type pg from 'pg';
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
import { isUnreachable, reasonOf } from './catalog-errors.js';
import { directoryPool } from './directory-pool.js';
import { inTransaction } from './in-transaction.js';
import { directoryError } from './directory-errors.js';
import { deleteChangesBefore, selectChangesAfter, selectLatestPosition, type Queryable } from './directory-feed.js';
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
import { preparing } from './prepared-statements.js';

export interface PostgresDirectoryStoreOptions {
  /** A libpq URL; it may hold a password, so it is never logged nor put in an error. */
  connectionString: string;
  logger: Logger;
  /** How long after losing the database the feed's listening connection is tried again. */
  reconnectMs?: number;
}

const DEFAULT_RECONNECT_MS = 1_000;

/**
 * The organizations' directories in PostgreSQL (the tables of migrations/0002_directory.sql),
 * shared by every instance. Each write is one transaction that checks the version as its
 * own condition and appends its changes to the feed before committing; the feed's trigger
 * notifies, and `watch` listens (directory-watch.ts). While the database cannot be reached
 * every call rejects with DirectoryUnavailable (`catalog.unavailable`) within about two
 * seconds (catalog-pool.ts), and the log says so once, and once more when it is back.
 */
export class PostgresDirectoryStore implements DirectoryStore {
  readonly #pool: pg.Pool;
  readonly #logger: Logger;
  readonly #watch: DirectoryWatch;
  #reportedLost = false;
  #closed: Promise<void> | undefined;

  constructor(options: PostgresDirectoryStoreOptions) {
    this.#logger = options.logger;
    this.#pool = directoryPool(options.connectionString);
    this.#watch = new DirectoryWatch(
      options.connectionString,
      options.reconnectMs ?? DEFAULT_RECONNECT_MS,
      options.logger,
    );
  }

  createUser(organization: string, attributes: UserAttributes, at: number): Promise<CreateOutcome<DirectoryUser>> {
    return this.#transaction((db) => insertUser(db, organization, attributes, at));
  }

  getUser(organization: string, id: string): Promise<DirectoryUser | undefined> {
    return this.#query((db) => selectUser(db, organization, id));
  }

  findUsers(organization: string, query: DirectoryQuery<UserAttribute>): Promise<DirectoryPage<DirectoryUser>> {
    return this.#query((db) => findUsers(db, organization, query));
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
    return this.#query((db) => selectGroup(db, organization, id));
  }

  findGroups(organization: string, query: DirectoryQuery<GroupAttribute>): Promise<DirectoryPage<DirectoryGroup>> {
    return this.#query((db) => findGroups(db, organization, query));
  }

  membersOf(organization: string, groupId: string): Promise<GroupMember[]> {
    return this.#query((db) => selectMembers(db, organization, groupId));
  }

  groupsOf(organization: string, userId: string): Promise<DirectoryGroup[]> {
    return this.#query((db) => selectGroupsOf(db, organization, userId));
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
    return this.#query((db) => selectSignInMatch(db, organization, who));
  }

  recordSignIn(organization: string, userId: string, provider: string, subject: string, at: number): Promise<void> {
    return this.#query((db) => insertSignIn(db, organization, userId, provider, subject, at));
  }

  signInsOf(organization: string, userId: string): Promise<{ provider: string; subject: string }[]> {
    return this.#query((db) => selectSignIns(db, organization, userId));
  }

  recordedSignIn(organization: string, provider: string, subject: string): Promise<SignInMatch | undefined> {
    return this.#query((db) => selectRecordedSignIn(db, organization, provider, subject));
  }

  changesAfter(position: string | undefined, limit: number): Promise<DirectoryChange[]> {
    return this.#query((db) => selectChangesAfter(db, position, limit));
  }

  latestPosition(): Promise<string | undefined> {
    return this.#query(selectLatestPosition);
  }

  removeChangesBefore(before: number, limit: number): Promise<number> {
    return this.#query((db) => deleteChangesBefore(db, before, limit));
  }

  watch(onChanged: () => void): () => void {
    return this.#watch.add(onChanged);
  }

  addToken(organization: string, token: StoredScimToken): Promise<void> {
    return this.#query((db) => insertToken(db, organization, token));
  }

  tokensOf(organization: string): Promise<StoredScimToken[]> {
    return this.#query((db) => selectTokens(db, organization));
  }

  removeToken(organization: string, id: string): Promise<boolean> {
    return this.#query((db) => deleteToken(db, organization, id));
  }

  tokenByHash(hash: string): Promise<(StoredScimToken & { organization: string }) | undefined> {
    return this.#query((db) => selectTokenByHash(db, hash));
  }

  markTokenUsed(organization: string, id: string, at: number): Promise<void> {
    return this.#query((db) => touchToken(db, organization, id, at));
  }

  /** Idempotent: a second call waits for the first. */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    await this.#watch.stop();
    await this.#pool.end();
  }

  /** Runs statements on the pool, prepared (prepared-statements.ts); pg's errors become the port's (directory-errors.ts). */
  async #query<T>(work: (db: Queryable) => Promise<T>): Promise<T> {
    try {
      const result = await work(preparing(this.#pool));
      this.#reached(true);
      return result;
    } catch (error) {
      throw this.#failed(error);
    }
  }

  /** Runs `work` in one transaction (in-transaction.ts), committed only when it wrote; health follows. */
  async #transaction<T extends { kind: string }>(work: (db: Queryable) => Promise<T>): Promise<T> {
    const outcome = await inTransaction(
      this.#pool,
      (client) => work(preparing(client)),
      (outcome) => outcome.kind === 'written' || outcome.kind === 'deleted',
      (error) => this.#failed(error),
    );
    this.#reached(true);
    return outcome;
  }

  #failed(error: unknown): Error {
    if (isUnreachable(error)) this.#reached(false, error);
    return directoryError(error);
  }

  /** One line when the store is lost, one when it is back: never the URL, never a value. */
  #reached(reached: boolean, error?: unknown): void {
    if (reached !== this.#reportedLost) return;
    this.#reportedLost = !reached;
    if (reached) this.#logger.info({}, 'the directory store (PostgreSQL) is reachable again');
    else
      this.#logger.error(
        error === undefined ? {} : { reason: reasonOf(error) },
        'the directory store (PostgreSQL) cannot be reached; SCIM requests are refused until it is back',
      );
  }
}
