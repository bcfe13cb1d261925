import { expect } from 'chai';
import { ScimTokens } from '../../../../src/application/directory/scim-tokens.js';
import type { DirectoryStore } from '../../../../src/application/ports/directory-store.js';

/** The one call of the store that marking makes; any other call fails the test. */
function markingStore(failing: () => boolean) {
  const writes: Array<[string, string, number]> = [];
  const store = new Proxy({} as DirectoryStore, {
    get: (_target, name) => {
      if (name !== 'markTokenUsed') throw new Error(`unexpected store call ${String(name)}`);
      return async (organization: string, id: string, at: number) => {
        if (failing()) throw Object.assign(new Error('down'), { code: 'catalog.unavailable' });
        writes.push([organization, id, at]);
      };
    },
  });
  return { store, writes };
}

describe('ScimTokens.markUsed: when a token was last used, written at most once a minute', () => {
  const noAudit = { record: () => undefined };

  it('writes the first use, skips the store within the minute, and writes again after it', async () => {
    let now = 1_000_000;
    const { store, writes } = markingStore(() => false);
    const tokens = new ScimTokens(store, noAudit, () => now);
    await tokens.markUsed('acme', 'token-1');
    now += 59_999;
    await tokens.markUsed('acme', 'token-1');
    expect(writes).to.deep.equal([['acme', 'token-1', 1_000_000]]);
    // Another token has a minute of its own.
    await tokens.markUsed('acme', 'token-2');
    now += 1;
    await tokens.markUsed('acme', 'token-1');
    expect(writes).to.deep.equal([
      ['acme', 'token-1', 1_000_000],
      ['acme', 'token-2', 1_059_999],
      ['acme', 'token-1', 1_060_000],
    ]);
  });

  it('loses a mark the store refused, never the request, and writes it at the next use', async () => {
    let down = true;
    const { store, writes } = markingStore(() => down);
    const tokens = new ScimTokens(store, noAudit, () => 5_000);
    await tokens.markUsed('acme', 'token-1');
    expect(writes).to.deep.equal([]);
    down = false;
    await tokens.markUsed('acme', 'token-1');
    expect(writes).to.deep.equal([['acme', 'token-1', 5_000]]);
  });
});
