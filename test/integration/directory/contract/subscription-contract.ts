import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreDirectory } from '../../../../src/application/directory/store-directory.js';
import type { DirectorySubscription } from '../../../../src/application/ports/directory.js';
import type { DirectoryChange } from '../../../../src/application/ports/directory-store.js';
import { within } from '../../../support/within.js';
import { RecordingLogger } from '../../postgres/catalog-harness.js';
import { T0, organization, userAttributes, written, type ContractStores } from './contract-stores.js';

/** How long a test waits for a change to be handed: "soon", on a machine busy with other suites. */
const HANDED_WAIT_MS = 8_000;

/** What a subscriber was handed, in order. */
class Handed {
  readonly changes: DirectoryChange[] = [];
  readonly handle = (change: DirectoryChange): void => {
    this.changes.push(change);
  };
  ids(): string[] {
    return this.changes.map((change) => change.resourceId);
  }
  async count(count: number): Promise<void> {
    await within(HANDED_WAIT_MS, `${count} changes handed`, async () => this.changes.length >= count);
  }
}

/**
 * The application's `Directory` port (StoreDirectory) over this store: its reads see one
 * organization only, and a subscription hands the feed's changes in order, at least once,
 * from where it started or resumes, whichever instance wrote them.
 */
export function subscriptionContract(stores: ContractStores): void {
  describe('the Directory port over the store (reads and subscriptions)', () => {
    const logger = new RecordingLogger();
    let directory: StoreDirectory;
    const subscriptions: DirectorySubscription[] = [];
    beforeEach(() => {
      directory = new StoreDirectory(stores.store, logger);
    });
    afterEach(async () => {
      await Promise.all(subscriptions.splice(0).map((subscription) => subscription.stop()));
      await directory.close();
    });
    const subscribe = async (...args: Parameters<StoreDirectory['subscribe']>) => {
      const subscription = await directory.subscribe(...args);
      subscriptions.push(subscription);
      return subscription;
    };
    const newUser = async (org: string, userName: string) =>
      written(await stores.store.createUser(org, userAttributes(userName), T0)).id;

    it("reads an organization's users and groups, a page at a time, and nothing of another's", async () => {
      const org = organization();
      const ada = await newUser(org, 'ada');
      const grace = await newUser(org, 'grace');
      await newUser(organization(), 'ada');
      written(await stores.store.createGroup(org, { displayName: 'Engineers' }, [ada], T0));

      const all = await directory.users(org);
      expect(all.total).to.equal(2);
      expect(all.resources.map((user) => user.id)).to.deep.equal([ada, grace]);
      const second = await directory.users(org, { startIndex: 2, count: 1 });
      expect(second.resources.map((user) => user.id)).to.deep.equal([grace]);
      const found = await directory.users(org, { filter: { op: 'sw', attribute: 'userName', value: 'GR' } });
      expect(found.resources.map((user) => user.id)).to.deep.equal([grace]);
      expect((await directory.user(org, ada))?.attributes.userName).to.equal('ada');
      expect(await directory.user(organization(), ada)).to.equal(undefined);

      const groups = await directory.groups(org);
      expect(groups.resources.map((group) => group.attributes.displayName)).to.deep.equal(['Engineers']);
      const groupId = groups.resources[0]!.id;
      expect((await directory.membersOf(org, groupId)).map((member) => member.value)).to.deep.equal([ada]);
      expect((await directory.groupsOf(org, ada)).map((group) => group.id)).to.deep.equal([groupId]);
      expect(await directory.membersOf(organization(), groupId)).to.deep.equal([]);
    });

    it("refuses a page that is no whole number, or an `after` that is no change's position, as the caller's bug", async () => {
      const org = organization();
      for (const query of [{ startIndex: 0 }, { startIndex: 1.5 }, { count: -1 }, { count: Number.NaN }]) {
        let refused: unknown;
        try {
          await directory.users(org, query);
        } catch (error) {
          refused = error;
        }
        expect(refused, JSON.stringify(query)).to.be.instanceOf(RangeError);
      }
      let refused: unknown;
      try {
        await directory.subscribe(() => undefined, { after: "1'; DROP TABLE x" });
      } catch (error) {
        refused = error;
      }
      expect(refused).to.be.instanceOf(RangeError);
    });

    it('hands the changes made after it started, in order, and none made before', async () => {
      const org = organization();
      const before = await newUser(org, 'before');
      const handed = new Handed();
      await subscribe(handed.handle, { organization: org });
      const first = await newUser(org, 'first');
      const second = await newUser(org, 'second');
      written(await stores.store.replaceUser(org, first, userAttributes('first', { active: false }), 1, T0 + 1));
      await handed.count(3);
      await sleep(100);
      expect(handed.changes.map((change) => [change.kind, change.resourceId])).to.deep.equal([
        ['created', first],
        ['created', second],
        ['deactivated', first],
      ]);
      expect(handed.ids()).not.to.include(before);
    });

    it("hands one organization's changes only when asked, and every organization's otherwise", async () => {
      const org = organization();
      const other = organization();
      const mine = new Handed();
      const everyone = new Handed();
      await subscribe(mine.handle, { organization: org });
      const all = await subscribe(everyone.handle);
      const theirs = await newUser(other, 'theirs');
      const ours = await newUser(org, 'ours');
      await mine.count(1);
      await within(HANDED_WAIT_MS, 'both users handed to the subscriber of all', async () =>
        [theirs, ours].every((id) => everyone.ids().includes(id)),
      );
      await sleep(100);
      expect(mine.ids()).to.deep.equal([ours]);
      // The subscription of one organization moved past the other's change without handing it.
      expect(BigInt(all.position ?? '0') >= BigInt(mine.changes[0]!.position)).to.equal(true);
    });

    it('hands a change whose handling threw again, before any later one, and logs no word of the error', async () => {
      const org = organization();
      const handed = new Handed();
      let failures = 0;
      await subscribe(
        (change) => {
          handed.handle(change);
          if (handed.changes.length === 2 && failures === 0) {
            failures += 1;
            throw new Error('SENTINEL-subscriber-error ada@example.com');
          }
        },
        { organization: org },
      );
      const [a, b, c] = [await newUser(org, 'a'), await newUser(org, 'b'), await newUser(org, 'c')];
      await handed.count(4);
      await sleep(100);
      expect(handed.ids()).to.deep.equal([a, b, b, c]);
      // The repeat is the same change: the id a subscriber drops a second sight by.
      expect(handed.changes[1]!.id).to.equal(handed.changes[2]!.id);
      const warned = logger.lines.filter((line) => line.includes('subscriber failed'));
      expect(warned).to.have.length.greaterThan(0);
      expect(logger.lines.join('\n')).not.to.include('SENTINEL');
      expect(logger.lines.join('\n')).not.to.include('ada@example.com');
    });

    it('resumes after the position a stopped subscription kept, and hands nothing once stopped', async () => {
      const org = organization();
      const first = new Handed();
      const subscription = await subscribe(first.handle, { organization: org });
      const a = await newUser(org, 'a');
      await first.count(1);
      await subscription.stop();
      const kept = subscription.position;
      expect(kept).to.equal(first.changes[0]!.position);
      const b = await newUser(org, 'b');
      await sleep(300);
      expect(first.ids()).to.deep.equal([a]);

      const resumed = new Handed();
      await subscribe(resumed.handle, { after: kept!, organization: org });
      await resumed.count(1);
      await sleep(100);
      expect(resumed.ids()).to.deep.equal([b]);
    });

    it('waits for the change being handled when stopped', async () => {
      const org = organization();
      let finished = false;
      let started = false;
      const subscription = await subscribe(
        async () => {
          started = true;
          await sleep(300);
          finished = true;
        },
        { organization: org },
      );
      await newUser(org, 'slow');
      await within(HANDED_WAIT_MS, 'the handler started', async () => started);
      await subscription.stop();
      expect(finished).to.equal(true);
    });

    it('hands a backlog larger than one read, in order, with no announcement after the first', async function () {
      this.timeout(60_000);
      const org = organization();
      const from = (await stores.store.latestPosition()) ?? '0';
      const ids: string[] = [];
      for (let n = 0; n < 230; n += 1) ids.push(await newUser(org, `burst-${n}`));
      const handed = new Handed();
      await subscribe(handed.handle, { after: from, organization: org });
      await handed.count(230);
      expect(handed.ids()).to.deep.equal(ids);
    });

    it("hands the changes another instance made (each instance's subscribers see every change)", async () => {
      const org = organization();
      const handed = new Handed();
      await subscribe(handed.handle, { organization: org });
      const elsewhere = await stores.another();
      const id = written(await elsewhere.createUser(org, userAttributes('remote'), T0)).id;
      await handed.count(1);
      expect(handed.ids()).to.deep.equal([id]);
    });
  });
}
