import { expect } from 'chai';
import { onFirstUse } from '../../../src/adapters/koa/on-first-use.js';

describe('onFirstUse (lazily imported views and static files)', () => {
  it('makes the value once, at the first use, and shares it with concurrent and later uses', async () => {
    let calls = 0;
    const value = onFirstUse(async () => ({ made: ++calls }));
    expect(calls).to.equal(0);
    const [first, concurrent] = await Promise.all([value(), value()]);
    const later = await value();
    expect(calls).to.equal(1);
    expect(concurrent).to.equal(first);
    expect(later).to.equal(first);
  });

  it('forgets a failed attempt, so the next use tries again', async () => {
    let calls = 0;
    const value = onFirstUse(async () => {
      calls += 1;
      if (calls === 1) throw new Error('module not found');
      return 'loaded';
    });
    let failure: unknown;
    await value().catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
    expect(await value()).to.equal('loaded');
    expect(await value()).to.equal('loaded');
    expect(calls).to.equal(2);
  });
});
