import { expect } from 'chai';
import type { DirectoryStore } from '../../../../src/application/ports/directory-store.js';
import {
  MINUTE,
  T0,
  organization,
  unknownId,
  userAttributes,
  written,
  type ContractStores,
} from './contract-stores.js';

/** Creates users `prefix0`, `prefix1`, … of the organization (a few at a time) and answers their ids in order. */
export async function createUsers(
  store: DirectoryStore,
  org: string,
  count: number,
  prefix = 'user',
): Promise<string[]> {
  const ids: string[] = new Array<string>(count);
  const parallel = 8;
  for (let start = 0; start < count; start += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - start) }, (_, offset) => start + offset);
    await Promise.all(
      batch.map(async (index) => {
        ids[index] = written(await store.createUser(org, userAttributes(`${prefix}${index}`), T0 + index)).id;
      }),
    );
  }
  return ids;
}

export function groupsContract(stores: ContractStores): void {
  describe('groups and members', () => {
    it('creates a group with members, in the order given; reads it, its members (with display) and groupsOf', async () => {
      const org = organization();
      const [ann, bob] = await createUsers(stores.store, org, 2, 'm');
      await stores.store.replaceUser(org, ann!, userAttributes('m0', { displayName: 'Ann' }), undefined, T0);
      const group = written(
        await stores.store.createGroup(org, { displayName: 'Admins', externalId: 'g-1' }, [bob!, ann!, bob!], T0),
      );
      expect(group).to.deep.equal({
        id: group.id,
        organization: org,
        attributes: { displayName: 'Admins', externalId: 'g-1' },
        version: 1,
        created: T0,
        lastModified: T0,
      });
      expect(await stores.store.getGroup(org, group.id)).to.deep.equal(group);
      expect(await stores.store.membersOf(org, group.id)).to.deep.equal([
        { value: bob, display: 'm1' },
        { value: ann, display: 'Ann' },
      ]);
      const other = written(await stores.store.createGroup(org, { displayName: 'Everyone' }, [ann!], T0 + 1));
      expect((await stores.store.groupsOf(org, ann!)).map((g) => g.id)).to.deep.equal([group.id, other.id]);
      expect((await stores.store.groupsOf(org, bob!)).map((g) => g.id)).to.deep.equal([group.id]);
      expect(await stores.store.getGroup(org, unknownId())).to.equal(undefined);
      expect(await stores.store.getGroup(org, 'nope')).to.equal(undefined);
      expect(await stores.store.membersOf(org, unknownId())).to.deep.equal([]);
      expect(await stores.store.groupsOf(org, unknownId())).to.deep.equal([]);
    });

    it('refuses a group whose members are not live users of the organization, writing nothing', async () => {
      const org = organization();
      const [ann, gone] = await createUsers(stores.store, org, 2);
      await stores.store.deleteUser(org, gone!, undefined, T0);
      const stranger = written(await stores.store.createUser(organization(), userAttributes('stranger'), T0)).id;
      const missing = unknownId();
      const outcome = await stores.store.createGroup(
        org,
        { displayName: 'Mixed' },
        [ann!, gone!, stranger, missing, 'not-an-id'],
        T0,
      );
      expect(outcome.kind).to.equal('unknown_members');
      expect(outcome.kind === 'unknown_members' && [...outcome.ids].sort()).to.deep.equal(
        [gone!, stranger, missing, 'not-an-id'].sort(),
      );
      expect(await stores.store.findGroups(org, { startIndex: 1, count: 10 })).to.deep.equal({
        total: 0,
        resources: [],
      });
      expect(await stores.store.groupsOf(org, ann!)).to.deep.equal([]);
    });

    it('refuses a displayName another group of the organization has, whatever its letter case', async () => {
      const org = organization();
      written(await stores.store.createGroup(org, { displayName: 'Sales' }, [], T0));
      expect(await stores.store.createGroup(org, { displayName: 'SALES' }, [], T0)).to.deep.equal({
        kind: 'taken',
        attribute: 'displayName',
      });
      const other = written(await stores.store.createGroup(org, { displayName: 'Support' }, [], T0));
      expect(
        await stores.store.changeGroup(org, other.id, { attributes: { displayName: 'sales' } }, 1, T0),
      ).to.deep.equal({ kind: 'taken', attribute: 'displayName' });
      expect(await stores.store.getGroup(org, other.id)).to.deep.equal(other);
      written(await stores.store.createGroup(organization(), { displayName: 'Sales' }, [], T0));
    });

    it('changes attributes and members (add, remove, replace) at one version more each, keeping the order of addition', async () => {
      const org = organization();
      const [a, b, c, d] = await createUsers(stores.store, org, 4);
      const group = written(await stores.store.createGroup(org, { displayName: 'Team' }, [a!, b!], T0));

      const renamed = written(
        await stores.store.changeGroup(
          org,
          group.id,
          { attributes: { displayName: 'Team 2', externalId: 'x' } },
          1,
          T0 + 1,
        ),
      );
      expect(renamed).to.deep.include({ attributes: { displayName: 'Team 2', externalId: 'x' }, version: 2 });
      expect(renamed.lastModified).to.equal(T0 + 1);

      const added = written(await stores.store.changeGroup(org, group.id, { members: { add: [c!, a!] } }, 2, T0 + 2));
      expect(added.version).to.equal(3);
      expect(added.attributes).to.deep.equal({ displayName: 'Team 2', externalId: 'x' });
      expect((await stores.store.membersOf(org, group.id)).map((m) => m.value)).to.deep.equal([a, b, c]);

      written(await stores.store.changeGroup(org, group.id, { members: { remove: [a!, d!] } }, 3, T0 + 3));
      expect((await stores.store.membersOf(org, group.id)).map((m) => m.value)).to.deep.equal([b, c]);

      written(await stores.store.changeGroup(org, group.id, { members: { add: [a!], remove: [b!] } }, 4, T0 + 4));
      expect((await stores.store.membersOf(org, group.id)).map((m) => m.value)).to.deep.equal([c, a]);

      const replaced = written(
        await stores.store.changeGroup(org, group.id, { members: { replace: [d!, a!] } }, undefined, T0 + 5),
      );
      expect(replaced.version).to.equal(6);
      expect((await stores.store.membersOf(org, group.id)).map((m) => m.value)).to.deep.equal([a, d]);
      written(await stores.store.changeGroup(org, group.id, { members: { replace: [] } }, 6, T0 + 6));
      expect(await stores.store.membersOf(org, group.id)).to.deep.equal([]);
    });

    it('refuses a change at a stale version, one adding an unknown member, and answers missing for an unknown group', async () => {
      const org = organization();
      const [a, b] = await createUsers(stores.store, org, 2);
      const group = written(await stores.store.createGroup(org, { displayName: 'G' }, [a!], T0));
      expect(await stores.store.changeGroup(org, group.id, { members: { add: [b!] } }, 2, T0)).to.deep.equal({
        kind: 'stale',
        currentVersion: 1,
      });
      const missing = unknownId();
      expect(
        await stores.store.changeGroup(
          org,
          group.id,
          { attributes: { displayName: 'Renamed' }, members: { add: [b!, missing] } },
          1,
          T0,
        ),
      ).to.deep.equal({ kind: 'unknown_members', ids: [missing] });
      expect(await stores.store.changeGroup(org, group.id, { members: { replace: [missing] } }, 1, T0)).to.deep.equal({
        kind: 'unknown_members',
        ids: [missing],
      });
      expect(await stores.store.getGroup(org, group.id)).to.deep.equal(group);
      expect((await stores.store.membersOf(org, group.id)).map((m) => m.value)).to.deep.equal([a]);
      expect(await stores.store.changeGroup(org, unknownId(), { members: { add: [a!] } }, undefined, T0)).to.deep.equal(
        {
          kind: 'missing',
        },
      );
      expect(await stores.store.changeGroup(org, 'nope', {}, undefined, T0)).to.deep.equal({ kind: 'missing' });
    });

    it('deletes a group at its version; a deleted user leaves its groups, each one version more', async () => {
      const org = organization();
      const [a, b] = await createUsers(stores.store, org, 2);
      const group = written(await stores.store.createGroup(org, { displayName: 'G' }, [a!, b!], T0));
      await stores.store.deleteUser(org, a!, undefined, T0 + MINUTE);
      expect((await stores.store.membersOf(org, group.id)).map((m) => m.value)).to.deep.equal([b]);
      const after = await stores.store.getGroup(org, group.id);
      expect(after?.version).to.equal(2);
      expect(after?.lastModified).to.equal(T0 + MINUTE);

      expect(await stores.store.deleteGroup(org, group.id, 1, T0)).to.deep.equal({ kind: 'stale', currentVersion: 2 });
      expect(await stores.store.deleteGroup(org, group.id, 2, T0)).to.deep.equal({ kind: 'deleted' });
      expect(await stores.store.getGroup(org, group.id)).to.equal(undefined);
      expect(await stores.store.membersOf(org, group.id)).to.deep.equal([]);
      expect(await stores.store.groupsOf(org, b!)).to.deep.equal([]);
      expect(await stores.store.deleteGroup(org, group.id, undefined, T0)).to.deep.equal({ kind: 'missing' });
      // Its displayName is free again.
      written(await stores.store.createGroup(org, { displayName: 'g' }, [], T0));
    });

    it('two instances changing a group at the same version: exactly one wins', async () => {
      const org = organization();
      const other = await stores.another();
      const ids = await createUsers(stores.store, org, 8);
      const group = written(await stores.store.createGroup(org, { displayName: 'Race' }, [], T0));
      for (let version = 1; version <= 4; version += 1) {
        const outcomes = await Promise.all([
          stores.store.changeGroup(org, group.id, { members: { add: [ids[2 * version - 2]!] } }, version, T0),
          other.changeGroup(org, group.id, { members: { add: [ids[2 * version - 1]!] } }, version, T0),
        ]);
        expect(outcomes.filter((outcome) => outcome.kind === 'written')).to.have.length(1);
        expect(outcomes.find((outcome) => outcome.kind !== 'written')).to.deep.equal({
          kind: 'stale',
          currentVersion: version + 1,
        });
      }
      expect(await stores.store.membersOf(org, group.id)).to.have.length(4);
    });

    describe('ten thousand members in one call', function () {
      this.timeout(180_000);
      const org = organization();
      let ids: string[] = [];
      before(async () => {
        ids = await createUsers(stores.store, org, 10_000, 'bulk');
      });

      it('adds 10,000 members in one change, then removes 5,000 in another, in order, each one version more', async () => {
        const group = written(await stores.store.createGroup(org, { displayName: 'All' }, [], T0));
        const position = await stores.store.latestPosition();
        written(await stores.store.changeGroup(org, group.id, { members: { add: ids } }, 1, T0 + 1));
        const members = await stores.store.membersOf(org, group.id);
        expect(members.map((m) => m.value)).to.deep.equal(ids);
        expect(members[9_999]).to.deep.equal({ value: ids[9_999], display: 'bulk9999' });

        const removed = ids.filter((_, index) => index % 2 === 0);
        const kept = ids.filter((_, index) => index % 2 === 1);
        written(await stores.store.changeGroup(org, group.id, { members: { remove: removed } }, 2, T0 + 2));
        expect((await stores.store.membersOf(org, group.id)).map((m) => m.value)).to.deep.equal(kept);
        expect((await stores.store.groupsOf(org, kept[0]!)).map((g) => g.id)).to.deep.equal([group.id]);
        expect(await stores.store.groupsOf(org, removed[0]!)).to.deep.equal([]);

        const changes = (await stores.store.changesAfter(position, 100)).filter((c) => c.resourceId === group.id);
        expect(changes.map((c) => c.kind)).to.deep.equal(['group_membership', 'group_membership']);
        expect(changes[0]?.members?.added).to.have.length(10_000);
        expect(changes[0]?.members?.removed).to.deep.equal([]);
        expect([...(changes[1]?.members?.removed ?? [])].sort()).to.deep.equal([...removed].sort());
      });

      it('refuses 10,000 members of which one is unknown, adding none', async () => {
        const group = written(await stores.store.createGroup(org, { displayName: 'Almost' }, [], T0));
        const missing = unknownId();
        expect(
          await stores.store.changeGroup(org, group.id, { members: { add: [...ids.slice(1), missing] } }, 1, T0),
        ).to.deep.equal({ kind: 'unknown_members', ids: [missing] });
        expect(await stores.store.membersOf(org, group.id)).to.deep.equal([]);
        expect((await stores.store.getGroup(org, group.id))?.version).to.equal(1);
      });
    });
  });
}
