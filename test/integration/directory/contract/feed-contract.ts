import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DirectoryChange } from '../../../../src/application/ports/directory-store.js';
import { T0, organization, unknownId, userAttributes, written, type ContractStores } from './contract-stores.js';

/**
 * How long a test waits for a notification it expects: the promise is "soon", and a machine
 * busy with other suites must not fail a test that only needs it to come.
 */
const NOTIFY_WAIT_MS = 8_000;

/** Counts the calls of a watch, and waits for the next. */
class CallCounter {
  calls = 0;
  readonly onChanged = (): void => {
    this.calls += 1;
  };

  async atLeast(calls: number, withinMs = NOTIFY_WAIT_MS): Promise<void> {
    const deadline = Date.now() + withinMs;
    while (this.calls < calls) {
      if (Date.now() > deadline) throw new Error(`called ${this.calls} times, not ${calls}, within ${withinMs} ms`);
      await sleep(20);
    }
  }
}

const summary = (change: DirectoryChange) => [change.kind, change.resourceType, change.resourceId];

export function feedContract(stores: ContractStores): void {
  describe('the feed of changes', () => {
    it('appends each change in order, with a position and an id of its own, the organization, kind, resource and time', async () => {
      const org = organization();
      const start = await stores.store.latestPosition();
      const user = written(await stores.store.createUser(org, userAttributes('fed'), T0));
      written(await stores.store.replaceUser(org, user.id, userAttributes('fed', { title: 'x' }), 1, T0 + 1));
      written(await stores.store.replaceUser(org, user.id, userAttributes('fed', { active: false }), 2, T0 + 2));
      written(
        await stores.store.replaceUser(org, user.id, userAttributes('fed', { active: false, title: 'y' }), 3, T0 + 3),
      );
      written(await stores.store.replaceUser(org, user.id, userAttributes('fed'), 4, T0 + 4));
      const group = written(await stores.store.createGroup(org, { displayName: 'Fed' }, [user.id], T0 + 5));
      written(await stores.store.changeGroup(org, group.id, { attributes: { displayName: 'Fed 2' } }, 1, T0 + 6));
      expect(await stores.store.deleteUser(org, user.id, undefined, T0 + 7)).to.deep.equal({ kind: 'deleted' });
      expect(await stores.store.deleteGroup(org, group.id, undefined, T0 + 8)).to.deep.equal({ kind: 'deleted' });

      const changes = await stores.store.changesAfter(start, 100);
      expect(changes.every((change) => change.organization === org)).to.equal(true);
      expect(changes.slice(0, 8).map(summary)).to.deep.equal([
        ['created', 'User', user.id],
        ['updated', 'User', user.id],
        ['deactivated', 'User', user.id],
        ['updated', 'User', user.id],
        ['reactivated', 'User', user.id],
        ['created', 'Group', group.id],
        ['group_membership', 'Group', group.id],
        ['updated', 'Group', group.id],
      ]);
      expect(changes[6]?.members).to.deep.equal({ added: [user.id], removed: [] });
      // Deleting the user takes it out of its group: both in one step, in either order.
      expect(changes.slice(8, 10).map(summary)).to.have.deep.members([
        ['group_membership', 'Group', group.id],
        ['deleted', 'User', user.id],
      ]);
      expect(changes.slice(8, 10).find((change) => change.kind === 'group_membership')?.members).to.deep.equal({
        added: [],
        removed: [user.id],
      });
      expect(changes.slice(10).map(summary)).to.deep.equal([['deleted', 'Group', group.id]]);
      expect(changes.map((change) => change.at)).to.deep.equal([0, 1, 2, 3, 4, 5, 5, 6, 7, 7, 8].map((d) => T0 + d));

      const positions = changes.map((change) => BigInt(change.position));
      expect(changes.every((change) => /^[0-9]+$/.test(change.position))).to.equal(true);
      expect(positions.every((position, index) => index === 0 || position > positions[index - 1]!)).to.equal(true);
      if (start !== undefined) expect(positions[0]! > BigInt(start)).to.equal(true);
      expect(new Set(changes.map((change) => change.id)).size).to.equal(changes.length);
      expect(await stores.store.latestPosition()).to.equal(changes[changes.length - 1]?.position);
    });

    it('resumes after a position, at most `limit` at a time; from the start when no position is given', async () => {
      const org = organization();
      const start = await stores.store.latestPosition();
      for (let index = 0; index < 5; index += 1)
        written(await stores.store.createUser(org, userAttributes(`r${index}`), T0));
      const all = await stores.store.changesAfter(start, 100);
      expect(all).to.have.length(5);
      const first = await stores.store.changesAfter(start, 2);
      expect(first).to.deep.equal(all.slice(0, 2));
      expect(await stores.store.changesAfter(first[1]?.position, 2)).to.deep.equal(all.slice(2, 4));
      expect(await stores.store.changesAfter(all[4]?.position, 10)).to.deep.equal([]);
      const oldest = await stores.store.changesAfter(undefined, 1);
      expect(BigInt(oldest[0]!.position) <= BigInt(all[0]!.position)).to.equal(true);
    });

    it('misses nothing for a subscriber reading after the last position it saw while two instances write at once', async () => {
      const org = organization();
      const other = await stores.another();
      const start = await stores.store.latestPosition();
      const seen: string[] = [];
      let position = start;
      let writing = true;
      const follow = async () => {
        for (;;) {
          const finished = !writing;
          const batch = await stores.store.changesAfter(position, 1_000);
          seen.push(...batch.filter((change) => change.organization === org).map((change) => change.id));
          position = batch[batch.length - 1]?.position ?? position;
          if (finished && batch.length === 0) return;
        }
      };
      const following = follow();
      for (let round = 0; round < 15; round += 1) {
        await Promise.all(
          [stores.store, other].flatMap((store, instance) =>
            [0, 1, 2, 3].map((writer) =>
              store.createUser(org, userAttributes(`w${round}-${instance}-${writer}`), T0 + round),
            ),
          ),
        );
      }
      writing = false;
      await following;
      const all = (await stores.store.changesAfter(start, 1_000)).filter((change) => change.organization === org);
      expect(all).to.have.length(15 * 8);
      expect(seen).to.deep.equal(all.map((change) => change.id));
    });

    it('appends nothing for a write refused (stale, taken, unknown members, missing)', async () => {
      const org = organization();
      const user = written(await stores.store.createUser(org, userAttributes('quiet'), T0));
      const group = written(await stores.store.createGroup(org, { displayName: 'Quiet' }, [], T0));
      const start = await stores.store.latestPosition();
      expect((await stores.store.replaceUser(org, user.id, userAttributes('quiet'), 9, T0)).kind).to.equal('stale');
      expect((await stores.store.createUser(org, userAttributes('QUIET'), T0)).kind).to.equal('taken');
      expect((await stores.store.createGroup(org, { displayName: 'x' }, [unknownId()], T0)).kind).to.equal(
        'unknown_members',
      );
      expect((await stores.store.changeGroup(org, group.id, { members: { add: [unknownId()] } }, 1, T0)).kind).to.equal(
        'unknown_members',
      );
      expect((await stores.store.deleteUser(org, unknownId(), undefined, T0)).kind).to.equal('missing');
      expect((await stores.store.deleteGroup(org, group.id, 5, T0)).kind).to.equal('stale');
      expect(await stores.store.changesAfter(start, 10)).to.deep.equal([]);
      expect(await stores.store.latestPosition()).to.equal(start);
    });

    it("calls a watch once when it starts, then soon after another instance's change; not after its stop", async function () {
      this.timeout(30_000);
      const watching = await stores.another();
      const counter = new CallCounter();
      const stop = watching.watch(counter.onChanged);
      await counter.atLeast(1);

      const before = counter.calls;
      written(await stores.store.createUser(organization(), userAttributes('watched'), T0));
      await counter.atLeast(before + 1);

      // A second subscriber of the same instance is called once when it starts, the first goes on.
      const second = new CallCounter();
      const stopSecond = watching.watch(second.onChanged);
      await second.atLeast(1);
      const failing = watching.watch(() => {
        throw new Error('a subscriber of its own failing');
      });
      const [first, other] = [counter.calls, second.calls];
      written(await stores.store.createGroup(organization(), { displayName: 'watched' }, [], T0));
      await counter.atLeast(first + 1);
      await second.atLeast(other + 1);

      stop();
      stopSecond();
      failing();
      const stopped = counter.calls;
      written(await stores.store.createUser(organization(), userAttributes('unwatched'), T0));
      await sleep(1_000);
      expect(counter.calls).to.equal(stopped);
    });

    it('removes the changes made before a time, the oldest first, at most `limit` a call, and nothing else', async () => {
      const org = organization();
      const start = await stores.store.latestPosition();
      // Times no other test writes (1970): the suite's other changes are all far later.
      for (const [name, at] of [
        ['old-1', 1_000],
        ['old-2', 2_000],
        ['kept', 3_000],
      ] as const) {
        written(await stores.store.createUser(org, userAttributes(name), at));
      }
      expect(await stores.store.removeChangesBefore(2_500, 1)).to.equal(1);
      expect((await stores.store.changesAfter(start, 100)).map((change) => change.at)).to.deep.equal([2_000, 3_000]);
      expect(await stores.store.removeChangesBefore(2_500, 10)).to.equal(1);
      expect(await stores.store.removeChangesBefore(2_500, 10)).to.equal(0);
      expect((await stores.store.changesAfter(start, 100)).map((change) => change.at)).to.deep.equal([3_000]);
      // The users themselves are not the feed's: all three are still there.
      expect((await stores.store.findUsers(org, { startIndex: 1, count: 10 })).total).to.equal(3);
    });
  });
}
