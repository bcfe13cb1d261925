import { expect } from 'chai';
import type { UserAttributes } from '../../../../src/domain/directory/directory-resources.js';
import {
  MINUTE,
  T0,
  organization,
  unknownId,
  userAttributes,
  written,
  type ContractStores,
} from './contract-stores.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every attribute a user can have, to see them all come back as they went in. */
const FULL_USER: UserAttributes = {
  userName: 'Barbara.Jensen@Example.com',
  externalId: '00u1abcd',
  active: true,
  displayName: 'Babs Jensen',
  nickName: 'Babs',
  title: 'Tour Guide',
  userType: 'Employee',
  preferredLanguage: 'en-US',
  locale: 'en-US',
  timezone: 'America/Los_Angeles',
  name: { formatted: 'Ms. Barbara J Jensen III', familyName: 'Jensen', givenName: 'Barbara', middleName: 'Jane' },
  emails: [
    { value: 'bjensen@example.com', type: 'work', primary: true },
    { value: 'babs@jensen.org', type: 'home' },
  ],
  phoneNumbers: [{ value: '555-555-8377', type: 'work' }],
  enterprise: { employeeNumber: '701984', department: 'Tour Operations', manager: { value: 'abc', displayName: 'J' } },
};

export function usersContract(stores: ContractStores): void {
  describe('users', () => {
    it('creates a user at version 1 with an id of its own, and reads it back whole', async () => {
      const org = organization();
      const user = written(await stores.store.createUser(org, FULL_USER, T0));
      expect(user.id).to.match(UUID);
      expect(user).to.deep.equal({
        id: user.id,
        organization: org,
        attributes: FULL_USER,
        version: 1,
        created: T0,
        lastModified: T0,
      });
      expect(await stores.store.getUser(org, user.id)).to.deep.equal(user);
      const other = written(await stores.store.createUser(org, userAttributes('someone.else'), T0));
      expect(other.id).to.not.equal(user.id);
    });

    it('answers undefined for an id never given, and for a string that is no id', async () => {
      const org = organization();
      expect(await stores.store.getUser(org, unknownId())).to.equal(undefined);
      expect(await stores.store.getUser(org, 'not-an-id')).to.equal(undefined);
      expect(await stores.store.getUser(org, '')).to.equal(undefined);
    });

    it('refuses a userName another live user of the organization has, whatever its letter case', async () => {
      const org = organization();
      written(await stores.store.createUser(org, userAttributes('Alice@Example.com'), T0));
      expect(await stores.store.createUser(org, userAttributes('alice@EXAMPLE.com'), T0)).to.deep.equal({
        kind: 'taken',
        attribute: 'userName',
      });
      // Another organization's directory is its own.
      written(await stores.store.createUser(organization(), userAttributes('alice@example.com'), T0));
      const page = await stores.store.findUsers(org, { startIndex: 1, count: 10 });
      expect(page.total).to.equal(1);
    });

    it('replaces a user at one version more, refuses a stale version, and answers missing for an unknown id', async () => {
      const org = organization();
      const user = written(await stores.store.createUser(org, userAttributes('carol', { title: 'Clerk' }), T0));
      const replaced = written(
        await stores.store.replaceUser(org, user.id, userAttributes('Carol', { displayName: 'Carol' }), 1, T0 + MINUTE),
      );
      expect(replaced).to.deep.equal({
        ...user,
        attributes: userAttributes('Carol', { displayName: 'Carol' }),
        version: 2,
        lastModified: T0 + MINUTE,
      });
      expect(await stores.store.getUser(org, user.id)).to.deep.equal(replaced);

      expect(await stores.store.replaceUser(org, user.id, userAttributes('x'), 1, T0)).to.deep.equal({
        kind: 'stale',
        currentVersion: 2,
      });
      expect((await stores.store.getUser(org, user.id))?.attributes.userName).to.equal('Carol');
      // No expectation: the write wins whatever the version.
      expect(
        written(await stores.store.replaceUser(org, user.id, userAttributes('carol'), undefined, T0)).version,
      ).to.equal(3);
      expect(await stores.store.replaceUser(org, unknownId(), userAttributes('x'), undefined, T0)).to.deep.equal({
        kind: 'missing',
      });
      expect(await stores.store.replaceUser(org, 'nope', userAttributes('x'), 1, T0)).to.deep.equal({
        kind: 'missing',
      });
    });

    it("refuses renaming a user to another live user's userName (letter case ignored), and changes nothing", async () => {
      const org = organization();
      written(await stores.store.createUser(org, userAttributes('dave'), T0));
      const erin = written(await stores.store.createUser(org, userAttributes('erin'), T0));
      expect(await stores.store.replaceUser(org, erin.id, userAttributes('DAVE'), 1, T0 + 1)).to.deep.equal({
        kind: 'taken',
        attribute: 'userName',
      });
      expect(await stores.store.getUser(org, erin.id)).to.deep.equal(erin);
      // Its own name in another case is its own.
      expect(written(await stores.store.replaceUser(org, erin.id, userAttributes('ERIN'), 1, T0 + 1)).version).to.equal(
        2,
      );
    });

    it('deletes a user: gone from every read, its userName free, a second delete missing', async () => {
      const org = organization();
      const frank = written(await stores.store.createUser(org, userAttributes('frank', { externalId: 'f-1' }), T0));
      expect(await stores.store.deleteUser(org, frank.id, 2, T0)).to.deep.equal({ kind: 'stale', currentVersion: 1 });
      expect(await stores.store.getUser(org, frank.id)).to.deep.equal(frank);

      expect(await stores.store.deleteUser(org, frank.id, 1, T0 + MINUTE)).to.deep.equal({ kind: 'deleted' });
      expect(await stores.store.getUser(org, frank.id)).to.equal(undefined);
      expect(await stores.store.findUsers(org, { startIndex: 1, count: 10 })).to.deep.equal({
        total: 0,
        resources: [],
      });
      expect(
        await stores.store.findUsers(org, {
          startIndex: 1,
          count: 10,
          filter: { op: 'eq', attribute: 'id', value: frank.id },
        }),
      ).to.deep.equal({ total: 0, resources: [] });
      expect(await stores.store.replaceUser(org, frank.id, userAttributes('frank'), undefined, T0)).to.deep.equal({
        kind: 'missing',
      });
      expect(await stores.store.deleteUser(org, frank.id, undefined, T0)).to.deep.equal({ kind: 'missing' });
      expect(await stores.store.deleteUser(org, unknownId(), undefined, T0)).to.deep.equal({ kind: 'missing' });

      const again = written(await stores.store.createUser(org, userAttributes('Frank'), T0 + 2 * MINUTE));
      expect(again.id).to.not.equal(frank.id);
    });

    it('two instances replacing a user at the same version: exactly one wins, the other learns the current version', async () => {
      const org = organization();
      const other = await stores.another();
      const user = written(await stores.store.createUser(org, userAttributes('race'), T0));
      for (let version = 1; version <= 8; version += 1) {
        const outcomes = await Promise.all([
          stores.store.replaceUser(
            org,
            user.id,
            userAttributes('race', { title: `a${version}` }),
            version,
            T0 + version,
          ),
          other.replaceUser(org, user.id, userAttributes('race', { title: `b${version}` }), version, T0 + version),
        ]);
        expect(
          outcomes.filter((outcome) => outcome.kind === 'written'),
          `round ${version}`,
        ).to.have.length(1);
        expect(outcomes.find((outcome) => outcome.kind !== 'written')).to.deep.equal({
          kind: 'stale',
          currentVersion: version + 1,
        });
      }
      expect((await stores.store.getUser(org, user.id))?.version).to.equal(9);
    });

    it('two instances creating the same userName at once: one is written, the other taken', async () => {
      const org = organization();
      const other = await stores.another();
      for (let round = 0; round < 5; round += 1) {
        const outcomes = await Promise.all([
          stores.store.createUser(org, userAttributes(`twin${round}`), T0),
          other.createUser(org, userAttributes(`TWIN${round}`), T0),
        ]);
        expect(outcomes.map((outcome) => outcome.kind).sort(), `round ${round}`).to.deep.equal(['taken', 'written']);
      }
      expect((await stores.store.findUsers(org, { startIndex: 1, count: 0 })).total).to.equal(5);
    });

    it('two instances deleting a user at once: one deleted, the other missing (or stale)', async () => {
      const org = organization();
      const other = await stores.another();
      const user = written(await stores.store.createUser(org, userAttributes('once'), T0));
      const outcomes = await Promise.all([
        stores.store.deleteUser(org, user.id, 1, T0),
        other.deleteUser(org, user.id, 1, T0),
      ]);
      expect(outcomes.filter((outcome) => outcome.kind === 'deleted')).to.have.length(1);
      expect(outcomes.find((outcome) => outcome.kind !== 'deleted')?.kind).to.be.oneOf(['missing', 'stale']);
    });
  });
}
