import { expect } from 'chai';
import { LoadedOnce } from '../../../src/adapters/loaded-once.js';

describe('LoadedOnce (discovery, lazily imported views and static files, the compiled SAML schema)', () => {
  it('makes the value once, at the first use, and shares it with concurrent and later uses', async () => {
    let calls = 0;
    const value = new LoadedOnce(async () => ({ made: ++calls }));
    expect(calls).to.equal(0);
    expect(value.loaded).to.equal(false);
    const [first, concurrent] = await Promise.all([value.get(), value.get()]);
    const later = await value.get();
    expect(calls).to.equal(1);
    expect(value.loaded).to.equal(true);
    expect(concurrent).to.equal(first);
    expect(later).to.equal(first);
  });

  it('keeps a value that is undefined (an installation done for its effect) without making it again', async () => {
    let calls = 0;
    const installed = new LoadedOnce(async () => {
      calls += 1;
    });
    await installed.get();
    await installed.get();
    expect(calls).to.equal(1);
    expect(installed.loaded).to.equal(true);
  });

  it('forgets a failed attempt, so the next use tries again', async () => {
    let calls = 0;
    const value = new LoadedOnce(async () => {
      calls += 1;
      if (calls === 1) throw new Error('module not found');
      return 'loaded';
    });
    let failure: unknown;
    await value.get().catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
    expect(value.loaded).to.equal(false);
    expect(await value.get()).to.equal('loaded');
    expect(await value.get()).to.equal('loaded');
    expect(calls).to.equal(2);
  });
});
