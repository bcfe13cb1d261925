import { expect } from 'chai';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { StoredScimToken } from '../../../../src/application/ports/directory-store.js';
import { MINUTE, T0, organization, type ContractStores } from './contract-stores.js';

/** A token as the application stores it: the hash of a bearer value it never keeps. */
function scimToken(createdAt: number): StoredScimToken {
  return {
    id: randomUUID(),
    hash: createHash('sha256').update(randomBytes(32)).digest('hex'),
    createdAt,
  };
}

export function tokensContract(stores: ContractStores): void {
  describe('SCIM tokens', () => {
    it('adds tokens, lists those of the organization, finds one by its hash with its organization, removes one', async () => {
      const org = organization();
      const [first, second] = [scimToken(T0), scimToken(T0 + MINUTE)];
      const used = { ...scimToken(T0 + 2 * MINUTE), lastUsedAt: T0 + 3 * MINUTE };
      for (const token of [first, second, used]) await stores.store.addToken(org, token);

      expect(await stores.store.tokensOf(org)).to.deep.equal([first, second, used]);
      expect(await stores.store.tokenByHash(second.hash)).to.deep.equal({ ...second, organization: org });
      expect(await stores.store.tokenByHash(used.hash)).to.deep.equal({ ...used, organization: org });
      expect(await stores.store.tokenByHash('0'.repeat(64))).to.equal(undefined);

      expect(await stores.store.removeToken(org, first.id)).to.equal(true);
      expect(await stores.store.removeToken(org, first.id)).to.equal(false);
      expect(await stores.store.tokenByHash(first.hash)).to.equal(undefined);
      expect(await stores.store.tokensOf(org)).to.deep.equal([second, used]);
    });

    it("keeps organizations' tokens apart: another's name lists none and removes none", async () => {
      const [org, other] = [organization(), organization()];
      const token = scimToken(T0);
      await stores.store.addToken(org, token);
      expect(await stores.store.tokensOf(other)).to.deep.equal([]);
      expect(await stores.store.removeToken(other, token.id)).to.equal(false);
      await stores.store.markTokenUsed(other, token.id, T0);
      expect(await stores.store.tokensOf(org)).to.deep.equal([token]);
      expect((await stores.store.tokenByHash(token.hash))?.organization).to.equal(org);
    });

    it('marks a token used at most once a minute', async () => {
      const org = organization();
      const token = scimToken(T0);
      await stores.store.addToken(org, token);
      const lastUsed = async () => (await stores.store.tokenByHash(token.hash))?.lastUsedAt;

      await stores.store.markTokenUsed(org, token.id, T0 + MINUTE);
      expect(await lastUsed()).to.equal(T0 + MINUTE);
      await stores.store.markTokenUsed(org, token.id, T0 + MINUTE + 59_999);
      expect(await lastUsed()).to.equal(T0 + MINUTE);
      await stores.store.markTokenUsed(org, token.id, T0 + 2 * MINUTE);
      expect(await lastUsed()).to.equal(T0 + 2 * MINUTE);
      await stores.store.markTokenUsed(org, 'no-such-token', T0 + 5 * MINUTE);
      expect(await lastUsed()).to.equal(T0 + 2 * MINUTE);
    });
  });
}
