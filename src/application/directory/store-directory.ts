import type { GroupAttribute, UserAttribute } from '../../domain/directory/directory-filter.js';
import type { DirectoryGroup, DirectoryUser, GroupMember } from '../../domain/directory/directory-resources.js';
import type {
  ChangeHandler,
  Directory,
  DirectoryReadQuery,
  DirectorySubscription,
  SubscribeOptions,
} from '../ports/directory.js';
import type { DirectoryPage, DirectoryQuery, DirectoryStore } from '../ports/directory-store.js';
import type { Logger } from '../ports/logger.js';
import { FeedSubscription } from './feed-subscription.js';

/** The page size a read gets when it names none, and the largest it may ask (SCIM's own cap). */
const DEFAULT_COUNT = 100;
const MAX_COUNT = 1_000;

/**
 * The application's view of the directories (the `Directory` port) over the store SCIM
 * writes into: reads go to the store as they are (the instance keeps no copy, whatever a
 * directory's size), and each subscription follows the store's feed on its own.
 */
export class StoreDirectory implements Directory {
  readonly #subscriptions = new Set<FeedSubscription>();

  constructor(
    private readonly store: DirectoryStore,
    private readonly logger: Logger,
  ) {}

  users(organization: string, query: DirectoryReadQuery<UserAttribute> = {}): Promise<DirectoryPage<DirectoryUser>> {
    return this.store.findUsers(organization, storeQuery(query));
  }

  user(organization: string, id: string): Promise<DirectoryUser | undefined> {
    return this.store.getUser(organization, id);
  }

  groups(organization: string, query: DirectoryReadQuery<GroupAttribute> = {}): Promise<DirectoryPage<DirectoryGroup>> {
    return this.store.findGroups(organization, storeQuery(query));
  }

  group(organization: string, id: string): Promise<DirectoryGroup | undefined> {
    return this.store.getGroup(organization, id);
  }

  membersOf(organization: string, groupId: string): Promise<GroupMember[]> {
    return this.store.membersOf(organization, groupId);
  }

  groupsOf(organization: string, userId: string): Promise<DirectoryGroup[]> {
    return this.store.groupsOf(organization, userId);
  }

  /** Starts following the feed; without `after`, from the latest change the store holds now. */
  async subscribe(handle: ChangeHandler, options: SubscribeOptions = {}): Promise<DirectorySubscription> {
    if (options.after !== undefined && !/^(0|[1-9][0-9]{0,18})$/.test(options.after)) {
      throw new RangeError('`after` is a position a change gave (a decimal integer)');
    }
    const after = options.after ?? (await this.store.latestPosition()) ?? '0';
    const subscription = new FeedSubscription(this.store, handle, after, options.organization, this.logger);
    this.#subscriptions.add(subscription);
    const stop = subscription.stop.bind(subscription);
    return {
      get position() {
        return subscription.position;
      },
      stop: async () => {
        this.#subscriptions.delete(subscription);
        await stop();
      },
    };
  }

  /** Stops every subscription (the instance's shutdown, before the store closes). */
  async close(): Promise<void> {
    const open = [...this.#subscriptions];
    this.#subscriptions.clear();
    await Promise.all(open.map((subscription) => subscription.stop()));
  }
}

/** A read's page as the store takes it: 1-based, at most MAX_COUNT; a count or index that is no whole number is the caller's bug. */
function storeQuery<A extends string>(query: DirectoryReadQuery<A>): DirectoryQuery<A> {
  const startIndex = query.startIndex ?? 1;
  const count = query.count ?? DEFAULT_COUNT;
  if (!Number.isSafeInteger(startIndex) || startIndex < 1) throw new RangeError('startIndex is a whole number from 1');
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError('count is a whole number from 0');
  return { ...(query.filter ? { filter: query.filter } : {}), startIndex, count: Math.min(count, MAX_COUNT) };
}
