import type { DirectoryFilter, GroupAttribute, UserAttribute } from '../../domain/directory/directory-filter.js';
import type {
  DirectoryGroup,
  DirectoryUser,
  GroupAttributes,
  GroupMember,
  UserAttributes,
} from '../../domain/directory/directory-resources.js';

/**
 * Where organizations' directories are kept: the users and groups their identity providers
 * push over SCIM, the tokens those pushes carry (hashed), the feed of changes the
 * application subscribes to, and which sign-ins were matched to which user. Every call
 * names the organization, and nothing of one organization is ever read or changed through
 * another's name: a store answers "missing" for an id of another organization.
 *
 * One store per deployment: PostgreSQL where a database is configured, which every
 * instance of the application shares; otherwise an embedded file, which one instance holds. Writes are transactions, and
 * each that changes something appends its changes to the feed in the same transaction.
 * A store that cannot be reached rejects with `CatalogUnavailable`'s error code
 * (`catalog.unavailable`), never with the driver's error.
 */
export interface DirectoryStore {
  createUser(organization: string, attributes: UserAttributes, at: number): Promise<CreateOutcome<DirectoryUser>>;
  /** The user, or undefined (never created, deleted, or of another organization). */
  getUser(organization: string, id: string): Promise<DirectoryUser | undefined>;
  findUsers(organization: string, query: DirectoryQuery<UserAttribute>): Promise<DirectoryPage<DirectoryUser>>;
  replaceUser(
    organization: string,
    id: string,
    attributes: UserAttributes,
    expected: number | undefined,
    at: number,
  ): Promise<WriteOutcome<DirectoryUser>>;
  /**
   * Deletes the user: gone from the SCIM API (its userName free again), removed from its
   * groups, but remembered for sign-in (`signInMatch` says `deleted`) until a user matching
   * it is created again.
   */
  deleteUser(organization: string, id: string, expected: number | undefined, at: number): Promise<DeleteOutcome>;

  createGroup(
    organization: string,
    attributes: GroupAttributes,
    members: readonly string[],
    at: number,
  ): Promise<CreateOutcome<DirectoryGroup>>;
  getGroup(organization: string, id: string): Promise<DirectoryGroup | undefined>;
  findGroups(organization: string, query: DirectoryQuery<GroupAttribute>): Promise<DirectoryPage<DirectoryGroup>>;
  /** A group's members, by user id, in the order they were added. */
  membersOf(organization: string, groupId: string): Promise<GroupMember[]>;
  /** The groups a user is a member of. */
  groupsOf(organization: string, userId: string): Promise<DirectoryGroup[]>;
  /** Changes a group's attributes and members in one step (a replace is `members: { replace }`). */
  changeGroup(
    organization: string,
    id: string,
    change: GroupChange,
    expected: number | undefined,
    at: number,
  ): Promise<WriteOutcome<DirectoryGroup>>;
  deleteGroup(organization: string, id: string, expected: number | undefined, at: number): Promise<DeleteOutcome>;

  /**
   * The user a sign-in is, by what the sign-in carried: a user whose `userName` or
   * `externalId` is one of `subjects` first, else one with one of `emails` (letter case
   * ignored). A live user is preferred to a deleted one; undefined when none matches.
   */
  signInMatch(
    organization: string,
    who: { subjects: readonly string[]; emails: readonly string[] },
  ): Promise<SignInMatch | undefined>;
  /** Remembers that a sign-in by `provider` and `subject` was this user's: where its sessions are found later. */
  recordSignIn(organization: string, userId: string, provider: string, subject: string, at: number): Promise<void>;
  /** The provider and subject of each sign-in recorded for the user. */
  signInsOf(organization: string, userId: string): Promise<{ provider: string; subject: string }[]>;
  /**
   * The user an earlier sign-in by `provider` and `subject` was recorded for, as it is now
   * (a deleted user's record is kept with its tombstone): a live user before a tombstone,
   * then the latest sign-in. Undefined when none was recorded.
   */
  recordedSignIn(organization: string, provider: string, subject: string): Promise<SignInMatch | undefined>;

  /** The changes after `position` (every organization's), oldest first, at most `limit`. */
  changesAfter(position: string | undefined, limit: number): Promise<DirectoryChange[]>;
  /** The position of the latest change (undefined when none): where a new subscriber starts. */
  latestPosition(): Promise<string | undefined>;
  /**
   * Removes at most `limit` of the changes made before `before` (milliseconds since the
   * epoch), the oldest first; how many it removed. The feed's retention: a caller removes
   * in steps until fewer than `limit` go, so no step holds the feed long.
   */
  removeChangesBefore(before: number, limit: number): Promise<number>;
  /** Calls `onChanged` soon after any instance appends a change (and once when listening starts); returns a stop. */
  watch(onChanged: () => void): () => void;

  addToken(organization: string, token: StoredScimToken): Promise<void>;
  tokensOf(organization: string): Promise<StoredScimToken[]>;
  /** Removes a token; false when the organization holds none of that id. */
  removeToken(organization: string, id: string): Promise<boolean>;
  /** The token of this hash (the SHA-256 of the bearer value, lowercase hex), whichever organization holds it. */
  tokenByHash(hash: string): Promise<(StoredScimToken & { organization: string }) | undefined>;
  /**
   * Sets a token's `lastUsedAt` to `at` unless it was set less than a minute before: called
   * at every request a token authenticates, it writes at most once a minute.
   */
  markTokenUsed(organization: string, id: string, at: number): Promise<void>;

  close(): Promise<void>;
}

export interface DirectoryQuery<A extends string> {
  filter?: DirectoryFilter<A>;
  /** 1-based, as SCIM counts (RFC 7644 3.4.2.4). */
  startIndex: number;
  /** At most this many (0 asks for the total only). */
  count: number;
}

/** A page of a query: `total` is every match, `resources` the page, ordered by creation. */
export interface DirectoryPage<T> {
  total: number;
  resources: T[];
}

export type CreateOutcome<T> =
  | { kind: 'written'; resource: T }
  /** `userName` is another live user's already, or a group's `displayName` another group's (letter case ignored). */
  | { kind: 'taken'; attribute: 'userName' | 'displayName' }
  /** A member named is no live user of the organization: nothing was written. */
  | { kind: 'unknown_members'; ids: string[] };

export type WriteOutcome<T> =
  | CreateOutcome<T>
  | { kind: 'missing' }
  /** Not at the version the write expected (If-Match): nothing was written. */
  | { kind: 'stale'; currentVersion: number };

export type DeleteOutcome = { kind: 'deleted' } | { kind: 'missing' } | { kind: 'stale'; currentVersion: number };

/** What a change to a group sets: attributes given are replaced, members changed as said. */
export interface GroupChange {
  attributes?: GroupAttributes;
  members?: { replace: readonly string[] } | { add?: readonly string[]; remove?: readonly string[] };
}

export interface SignInMatch {
  userId: string;
  /** `active`: may sign in; `inactive` (active: false) and `deleted`: deprovisioned. */
  state: 'active' | 'inactive' | 'deleted';
}

/** One change of the feed, as every subscriber sees it. */
export interface DirectoryChange {
  /** The feed's order (a decimal integer as text): changes compare by it, and a subscriber resumes after one. */
  position: string;
  /** Unique across the feed: a subscriber that sees a change twice (at least once) drops the second by it. */
  id: string;
  organization: string;
  kind: DirectoryChangeKind;
  resourceType: 'User' | 'Group';
  resourceId: string;
  at: number;
  /** For `group_membership`: the user ids that joined and left. */
  members?: { added: string[]; removed: string[] };
}

export type DirectoryChangeKind =
  'created' | 'updated' | 'deactivated' | 'reactivated' | 'deleted' | 'group_membership';

export interface StoredScimToken {
  id: string;
  /** SHA-256 of the bearer value, lowercase hex: the value itself is never stored. */
  hash: string;
  createdAt: number;
  /** When it was last used to authenticate a request (at most once a minute written). */
  lastUsedAt?: number;
}

export const DirectoryStoreToken = Symbol('DirectoryStore');
