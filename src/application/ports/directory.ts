import type { DirectoryFilter, GroupAttribute, UserAttribute } from '../../domain/directory/directory-filter.js';
import type { DirectoryGroup, DirectoryUser, GroupMember } from '../../domain/directory/directory-resources.js';
import type { DirectoryChange, DirectoryPage } from './directory-store.js';

/**
 * What the application reads of its customers' directories: each organization's people and
 * groups as its identity provider pushed them over SCIM, and the changes to them, as they
 * happen. The port the application's own code depends on (`gatehouse.directory`, or the
 * container's `DirectoryToken`), whichever store keeps the directories; present only when
 * directory sync is on. Every read names the organization and sees only its people.
 */
export interface Directory {
  /** The organization's users, ordered by creation: a page of at most 1,000 and the total. */
  users(organization: string, query?: DirectoryReadQuery<UserAttribute>): Promise<DirectoryPage<DirectoryUser>>;
  /** The user, or undefined (never created, deleted, or of another organization). */
  user(organization: string, id: string): Promise<DirectoryUser | undefined>;
  groups(organization: string, query?: DirectoryReadQuery<GroupAttribute>): Promise<DirectoryPage<DirectoryGroup>>;
  group(organization: string, id: string): Promise<DirectoryGroup | undefined>;
  /** A group's members by user id, in the order they were added (empty for a group of another organization). */
  membersOf(organization: string, groupId: string): Promise<GroupMember[]>;
  /** The groups a user is a member of. */
  groupsOf(organization: string, userId: string): Promise<DirectoryGroup[]>;
  /**
   * Calls `handle` with each change to the directories (created, updated, deactivated,
   * reactivated, deleted, group membership), one at a time, in the order they were made,
   * at least once: a change whose handling threw is handed again (after a pause) before any
   * later one, and after a restart a subscriber resumes from the position it kept, so one
   * may see a change twice and drops it by its `id`. Changes made on any instance reach
   * every instance's subscribers. Resolves once the subscription's start is fixed: without
   * `after`, every change made after that is handed. Rejects (`catalog.unavailable`) when
   * the store cannot say where its changes stand.
   */
  subscribe(handle: ChangeHandler, options?: SubscribeOptions): Promise<DirectorySubscription>;
}

export interface DirectoryReadQuery<A extends string> {
  filter?: DirectoryFilter<A>;
  /** 1-based (1 by default). */
  startIndex?: number;
  /** At most 1,000 (100 by default). */
  count?: number;
}

export type ChangeHandler = (change: DirectoryChange) => void | Promise<void>;

export interface SubscribeOptions {
  /**
   * The position of the last change the subscriber handled (`change.position`, which it
   * keeps with the work the change caused): changes after it are handed. Absent: the
   * changes made from the subscription's start on.
   */
  after?: string;
  /** Only this organization's changes (all organizations' otherwise). */
  organization?: string;
}

export interface DirectorySubscription {
  /** The position of the last change handled (or skipped as another organization's): where to resume. */
  readonly position: string | undefined;
  /** Stops handing changes; resolves once a change being handled is done. */
  stop(): Promise<void>;
}

export const DirectoryToken = Symbol('Directory');
