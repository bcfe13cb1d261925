import { expect } from 'chai';
import { T0, organization, userAttributes, written, type ContractStores } from './contract-stores.js';

export function pagingContract(stores: ContractStores): void {
  describe('paging', () => {
    const org = organization();
    const ids: string[] = [];
    const groupIds: string[] = [];

    before(async () => {
      // One after the other, most at the same time: the order of creation still orders them.
      for (let index = 0; index < 25; index += 1) {
        const at = T0 + (index < 5 ? index : 5);
        ids.push(
          written(await stores.store.createUser(org, userAttributes(`p${String(index).padStart(2, '0')}`), at)).id,
        );
      }
      for (let index = 0; index < 7; index += 1) {
        groupIds.push(written(await stores.store.createGroup(org, { displayName: `group ${index}` }, [], T0)).id);
      }
    });

    it('pages users by startIndex (1-based) and count, in the order of creation, with the total of every match', async () => {
      const seen: string[] = [];
      for (const startIndex of [1, 11, 21]) {
        const page = await stores.store.findUsers(org, { startIndex, count: 10 });
        expect(page.total).to.equal(25);
        seen.push(...page.resources.map((user) => user.id));
      }
      expect(seen).to.deep.equal(ids);
      expect((await stores.store.findUsers(org, { startIndex: 3, count: 2 })).resources.map((u) => u.id)).to.deep.equal(
        ids.slice(2, 4),
      );
    });

    it('answers the total alone for count 0, and an empty page past the end', async () => {
      expect(await stores.store.findUsers(org, { startIndex: 1, count: 0 })).to.deep.equal({
        total: 25,
        resources: [],
      });
      expect(await stores.store.findUsers(org, { startIndex: 26, count: 10 })).to.deep.equal({
        total: 25,
        resources: [],
      });
      expect(await stores.store.findUsers(organization(), { startIndex: 1, count: 10 })).to.deep.equal({
        total: 0,
        resources: [],
      });
    });

    it('pages the matches of a filter, with their total', async () => {
      const filter = { op: 'sw', attribute: 'userName', value: 'p1' } as const;
      const first = await stores.store.findUsers(org, { filter, startIndex: 1, count: 4 });
      expect(first.total).to.equal(10);
      expect(first.resources.map((user) => user.attributes.userName)).to.deep.equal(['p10', 'p11', 'p12', 'p13']);
      const last = await stores.store.findUsers(org, { filter, startIndex: 9, count: 4 });
      expect(last.resources.map((user) => user.attributes.userName)).to.deep.equal(['p18', 'p19']);
    });

    it('pages groups the same way', async () => {
      const page = await stores.store.findGroups(org, { startIndex: 3, count: 3 });
      expect(page.total).to.equal(7);
      expect(page.resources.map((group) => group.id)).to.deep.equal(groupIds.slice(2, 5));
      expect(await stores.store.findGroups(org, { startIndex: 1, count: 0 })).to.deep.equal({
        total: 7,
        resources: [],
      });
    });
  });
}
