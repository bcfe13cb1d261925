import { expect } from 'chai';
import {
  MINUTE,
  T0,
  organization,
  unknownId,
  userAttributes,
  written,
  type ContractStores,
} from './contract-stores.js';

const none = { subjects: [], emails: [] };

export function signInContract(stores: ContractStores): void {
  describe('sign-in matching and tombstones', () => {
    it('matches a subject to a userName (letter case ignored) or an externalId (exactly), else an e-mail (any, case ignored)', async () => {
      const org = organization();
      const ann = written(
        await stores.store.createUser(
          org,
          userAttributes('Ann@Example.com', {
            externalId: 'Okta-00u1',
            emails: [
              { value: 'ann@example.com', type: 'work' },
              { value: 'Ann.Private@Home.org', type: 'home' },
            ],
          }),
          T0,
        ),
      ).id;
      const ben = written(await stores.store.createUser(org, userAttributes('ben', { active: false }), T0)).id;
      const match = (subjects: string[], emails: string[] = []) => stores.store.signInMatch(org, { subjects, emails });

      expect(await match(['ANN@example.COM'])).to.deep.equal({ userId: ann, state: 'active' });
      expect(await match(['nobody', 'Okta-00u1'])).to.deep.equal({ userId: ann, state: 'active' });
      expect(await match(['okta-00u1'])).to.equal(undefined);
      expect(await match(['nobody'], ['ann.private@home.ORG'])).to.deep.equal({ userId: ann, state: 'active' });
      expect(await match(['Ben'])).to.deep.equal({ userId: ben, state: 'inactive' });
      expect(await match(['nobody'], ['nobody@example.com'])).to.equal(undefined);
      expect(await stores.store.signInMatch(org, none)).to.equal(undefined);
      expect(await stores.store.signInMatch(organization(), { subjects: ['ann@example.com'], emails: [] })).to.equal(
        undefined,
      );
    });

    it("prefers a subject's match to an e-mail's, even an older user's", async () => {
      const org = organization();
      const byEmail = written(
        await stores.store.createUser(org, userAttributes('first', { emails: [{ value: 'kim@example.com' }] }), T0),
      ).id;
      const bySubject = written(await stores.store.createUser(org, userAttributes('Kim@example.com'), T0 + 1)).id;
      expect(
        await stores.store.signInMatch(org, { subjects: ['kim@example.com'], emails: ['kim@example.com'] }),
      ).to.deep.equal({ userId: bySubject, state: 'active' });
      expect(await stores.store.signInMatch(org, { subjects: ['x'], emails: ['KIM@example.com'] })).to.deep.equal({
        userId: byEmail,
        state: 'active',
      });
    });

    it('matches a deleted user as deleted, out of every SCIM read, and prefers a live user to it', async () => {
      const org = organization();
      const gone = written(
        await stores.store.createUser(
          org,
          userAttributes('lee', { externalId: 'sub-1', emails: [{ value: 'lee@example.com' }] }),
          T0,
        ),
      ).id;
      const group = written(await stores.store.createGroup(org, { displayName: 'G' }, [gone], T0));
      expect(await stores.store.deleteUser(org, gone, undefined, T0 + MINUTE)).to.deep.equal({ kind: 'deleted' });

      expect(await stores.store.signInMatch(org, { subjects: ['LEE'], emails: [] })).to.deep.equal({
        userId: gone,
        state: 'deleted',
      });
      expect(await stores.store.signInMatch(org, { subjects: [], emails: ['lee@EXAMPLE.com'] })).to.deep.equal({
        userId: gone,
        state: 'deleted',
      });
      expect(await stores.store.getUser(org, gone)).to.equal(undefined);
      expect((await stores.store.findUsers(org, { startIndex: 1, count: 10 })).total).to.equal(0);
      expect(
        (
          await stores.store.findUsers(org, {
            startIndex: 1,
            count: 10,
            filter: { op: 'eq', attribute: 'userName', value: 'lee' },
          })
        ).total,
      ).to.equal(0);
      expect(await stores.store.membersOf(org, group.id)).to.deep.equal([]);
      expect(await stores.store.groupsOf(org, gone)).to.deep.equal([]);
      expect((await stores.store.createGroup(org, { displayName: 'H' }, [gone], T0)).kind).to.equal('unknown_members');

      // A live user matching the same e-mail, or the same subject otherwise (its userName is the tombstone's externalId).
      const live = written(
        await stores.store.createUser(
          org,
          userAttributes('sub-1', { emails: [{ value: 'Lee@example.com' }] }),
          T0 + 2 * MINUTE,
        ),
      ).id;
      expect(await stores.store.signInMatch(org, { subjects: [], emails: ['lee@example.com'] })).to.deep.equal({
        userId: live,
        state: 'active',
      });
      expect(await stores.store.signInMatch(org, { subjects: ['sub-1'], emails: [] })).to.deep.equal({
        userId: live,
        state: 'active',
      });
    });

    it('forgets a tombstone once a user matching it (userName or externalId) is created again', async () => {
      const org = organization();
      const gina = written(await stores.store.createUser(org, userAttributes('gina', { externalId: 'g-ext' }), T0)).id;
      const hal = written(await stores.store.createUser(org, userAttributes('hal', { externalId: 'h-ext' }), T0)).id;
      await stores.store.deleteUser(org, gina, undefined, T0 + 1);
      await stores.store.deleteUser(org, hal, undefined, T0 + 1);
      expect(await stores.store.signInMatch(org, { subjects: ['g-ext'], emails: [] })).to.deep.equal({
        userId: gina,
        state: 'deleted',
      });

      const newGina = written(await stores.store.createUser(org, userAttributes('GINA'), T0 + 2)).id;
      expect(await stores.store.signInMatch(org, { subjects: ['g-ext'], emails: [] })).to.equal(undefined);
      expect(await stores.store.signInMatch(org, { subjects: ['gina'], emails: [] })).to.deep.equal({
        userId: newGina,
        state: 'active',
      });

      written(await stores.store.createUser(org, userAttributes('hal2', { externalId: 'h-ext' }), T0 + 2));
      expect(await stores.store.signInMatch(org, { subjects: ['hal'], emails: [] })).to.equal(undefined);
    });

    it("records a user's sign-ins once each, kept after it is deleted, and for its organization only", async () => {
      const org = organization();
      const user = written(await stores.store.createUser(org, userAttributes('ivy'), T0)).id;
      await stores.store.recordSignIn(org, user, 'okta', 'sub-ivy', T0);
      await stores.store.recordSignIn(org, user, 'okta', 'sub-ivy', T0 + MINUTE);
      await stores.store.recordSignIn(org, user, 'entra', 'oid-ivy', T0 + MINUTE);
      await stores.store.recordSignIn(organization(), user, 'other', 'sub-other', T0);
      await stores.store.recordSignIn(org, unknownId(), 'okta', 'sub-nobody', T0);

      const expected = [
        { provider: 'entra', subject: 'oid-ivy' },
        { provider: 'okta', subject: 'sub-ivy' },
      ];
      const sorted = async () =>
        (await stores.store.signInsOf(org, user)).sort((a, b) => a.provider.localeCompare(b.provider));
      expect(await sorted()).to.deep.equal(expected);
      expect(await stores.store.signInsOf(organization(), user)).to.deep.equal([]);
      expect(await stores.store.signInsOf(org, unknownId())).to.deep.equal([]);

      await stores.store.deleteUser(org, user, undefined, T0 + 2 * MINUTE);
      expect(await sorted()).to.deep.equal(expected);
    });

    it('finds the user a sign-in was recorded for, in its state now, whatever its attributes became; a live one before a tombstone', async () => {
      const org = organization();
      const jay = written(await stores.store.createUser(org, userAttributes('jay', { externalId: 'j-ext' }), T0)).id;
      await stores.store.recordSignIn(org, jay, 'okta', 'sub-jay', T0);
      expect(await stores.store.recordedSignIn(org, 'okta', 'sub-jay')).to.deep.equal({ userId: jay, state: 'active' });
      // The directory renames and deactivates the person: their recorded sign-in still finds them.
      written(
        await stores.store.replaceUser(org, jay, userAttributes('jay.renamed', { active: false }), 1, T0 + MINUTE),
      );
      expect(await stores.store.signInMatch(org, { subjects: ['sub-jay', 'jay'], emails: [] })).to.equal(undefined);
      expect(await stores.store.recordedSignIn(org, 'okta', 'sub-jay')).to.deep.equal({
        userId: jay,
        state: 'inactive',
      });
      // Another provider, subject or organization recorded nothing.
      expect(await stores.store.recordedSignIn(org, 'entra', 'sub-jay')).to.equal(undefined);
      expect(await stores.store.recordedSignIn(org, 'okta', 'SUB-JAY')).to.equal(undefined);
      expect(await stores.store.recordedSignIn(organization(), 'okta', 'sub-jay')).to.equal(undefined);

      await stores.store.deleteUser(org, jay, undefined, T0 + 2 * MINUTE);
      expect(await stores.store.recordedSignIn(org, 'okta', 'sub-jay')).to.deep.equal({
        userId: jay,
        state: 'deleted',
      });
      // The same subject recorded for a live user since: the live one.
      const kim = written(await stores.store.createUser(org, userAttributes('kim'), T0 + 3 * MINUTE)).id;
      await stores.store.recordSignIn(org, kim, 'okta', 'sub-jay', T0 + 3 * MINUTE);
      expect(await stores.store.recordedSignIn(org, 'okta', 'sub-jay')).to.deep.equal({ userId: kim, state: 'active' });
    });
  });
}
