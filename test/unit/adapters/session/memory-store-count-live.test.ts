import { expect } from 'chai';
import { MemorySessionStore } from '../../../../src/adapters/session/memory-session-store.js';
import { FixedClock } from '../../../support/fixed-clock.js';

describe('MemorySessionStore.countLive (the sessions an active-sessions gauge reads)', () => {
  it('counts unexpired records under the prefix only, up to the last millisecond of their lifetime', async () => {
    const clock = new FixedClock();
    const store = new MemorySessionStore({ maxEntries: 100, clock });
    await store.create('session:a', { signIn: 'x' }, 60_000);
    await store.create('session:b', { signIn: 'y' }, 30_000);
    await store.create('signin:x', { subject: 'x' }, 60_000);
    await store.addToIndex('sessions-of:x', 'a', clock.now() + 60_000);
    expect(store.countLive('session:')).to.equal(2);

    clock.advance(29_999);
    expect(store.countLive('session:'), 'b has a millisecond left').to.equal(2);
    clock.advance(1);
    expect(store.countLive('session:'), 'b has expired, swept or not').to.equal(1);
    await store.destroy('session:a');
    expect(store.countLive('session:')).to.equal(0);
  });
});
