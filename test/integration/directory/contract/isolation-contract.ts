import { expect } from 'chai';
import { T0, organization, userAttributes, written, type ContractStores } from './contract-stores.js';

/** Nothing of one organization is read or changed through another's name, whatever the method. */
export function isolationContract(stores: ContractStores): void {
  describe("another organization's ids", () => {
    it('answer missing or undefined on every method, and nothing of the owner changes', async () => {
      const [org, other] = [organization(), organization()];
      const user = written(
        await stores.store.createUser(
          org,
          userAttributes('owner', { externalId: 'own-1', emails: [{ value: 'owner@example.com' }] }),
          T0,
        ),
      );
      const group = written(await stores.store.createGroup(org, { displayName: 'Owners' }, [user.id], T0));
      await stores.store.recordSignIn(org, user.id, 'okta', 'sub-owner', T0);
      const otherGroup = written(await stores.store.createGroup(other, { displayName: 'Theirs' }, [], T0));
      const start = await stores.store.latestPosition();

      expect(await stores.store.getUser(other, user.id)).to.equal(undefined);
      expect(await stores.store.replaceUser(other, user.id, userAttributes('stolen'), undefined, T0)).to.deep.equal({
        kind: 'missing',
      });
      expect(await stores.store.replaceUser(other, user.id, userAttributes('stolen'), 1, T0)).to.deep.equal({
        kind: 'missing',
      });
      expect(await stores.store.deleteUser(other, user.id, undefined, T0)).to.deep.equal({ kind: 'missing' });
      expect(await stores.store.getGroup(other, group.id)).to.equal(undefined);
      expect(
        await stores.store.changeGroup(other, group.id, { members: { replace: [] } }, undefined, T0),
      ).to.deep.equal({
        kind: 'missing',
      });
      expect(await stores.store.deleteGroup(other, group.id, 1, T0)).to.deep.equal({ kind: 'missing' });
      expect(await stores.store.membersOf(other, group.id)).to.deep.equal([]);
      expect(await stores.store.groupsOf(other, user.id)).to.deep.equal([]);
      expect(
        await stores.store.findUsers(other, {
          startIndex: 1,
          count: 10,
          filter: { op: 'eq', attribute: 'id', value: user.id },
        }),
      ).to.deep.equal({ total: 0, resources: [] });
      expect(
        await stores.store.findGroups(other, {
          startIndex: 1,
          count: 10,
          filter: { op: 'eq', attribute: 'members.value', value: user.id },
        }),
      ).to.deep.equal({ total: 0, resources: [] });
      expect(await stores.store.createGroup(other, { displayName: 'Steal' }, [user.id], T0)).to.deep.equal({
        kind: 'unknown_members',
        ids: [user.id],
      });
      expect(
        await stores.store.changeGroup(other, otherGroup.id, { members: { add: [user.id] } }, undefined, T0),
      ).to.deep.equal({ kind: 'unknown_members', ids: [user.id] });
      expect(
        await stores.store.signInMatch(other, { subjects: ['owner', 'own-1'], emails: ['owner@example.com'] }),
      ).to.equal(undefined);
      expect(await stores.store.signInsOf(other, user.id)).to.deep.equal([]);

      expect(await stores.store.getUser(org, user.id)).to.deep.equal(user);
      expect(await stores.store.getGroup(org, group.id)).to.deep.equal(group);
      expect((await stores.store.membersOf(org, group.id)).map((member) => member.value)).to.deep.equal([user.id]);
      expect(await stores.store.signInsOf(org, user.id)).to.deep.equal([{ provider: 'okta', subject: 'sub-owner' }]);
      expect(await stores.store.changesAfter(start, 10)).to.deep.equal([]);
    });
  });
}
