import { expect } from 'chai';
import { MemorySessionStore } from '../../../../src/adapters/session/memory-session-store.js';
import { ReplayShareSessionStore } from '../../../../src/adapters/session/replay-share-session-store.js';
import { ScopedSessionStore } from '../../../../src/adapters/session/scoped-session-store.js';
import { isGatehouseError } from '../../../../src/domain/errors.js';
import { FixedClock } from '../../../support/fixed-clock.js';

const MINUTE = 60_000;
const WINDOW = 10 * MINUTE;

/** Two connections' shares over one replay store, as the composition root builds them. */
describe('ReplayShareSessionStore: a connection’s share of the replay records', () => {
  let clock: FixedClock;
  let shared: MemorySessionStore;
  let warnings: object[];
  const shareOf = (name: string, share: number) =>
    new ReplayShareSessionStore(new ScopedSessionStore(shared, `connection:${name}:`), {
      share,
      windowMs: WINDOW,
      owner: name,
      logger: { warn: (fields) => warnings.push(fields) },
    });
  const refusal = (write: Promise<unknown>) =>
    write.then(
      () => 'written',
      (error: unknown) => (isGatehouseError(error) ? `${error.code} ${error.retryAfterMs}` : String(error)),
    );

  beforeEach(() => {
    clock = new FixedClock(1_000_000);
    shared = new MemorySessionStore({ maxEntries: 1_000, clock });
    warnings = [];
  });

  it('refuses past the share, writing nothing, until the window ends; another connection is untouched', async () => {
    const acme = shareOf('acme', 3);
    const globex = shareOf('globex', 3);
    for (const id of ['a', 'b', 'c']) expect(await acme.create(id, {}, 5 * MINUTE)).to.equal(true);
    expect(await refusal(acme.create('d', {}, 5 * MINUTE))).to.equal(`session.store_full ${WINDOW}`);
    expect(await acme.get('d'), 'nothing written').to.equal(undefined);
    expect(await refusal(acme.create('e', {}, 5 * MINUTE))).to.match(/^session\.store_full/);
    expect(warnings, 'logged once a window').to.deep.equal([{ connection: 'acme', share: 3, windowSeconds: 600 }]);
    expect(await globex.create('a', {}, 5 * MINUTE), 'another connection').to.equal(true);
    clock.advance(WINDOW);
    expect(await acme.create('f', {}, 5 * MINUTE), 'a new window').to.equal(true);
  });

  it('counts a record once per window it lives: an hour-long record spends six of ten', async () => {
    const acme = shareOf('acme', 10);
    expect(await acme.create('long', {}, 60 * MINUTE)).to.equal(true);
    for (const id of ['a', 'b', 'c', 'd']) expect(await acme.create(id, {}, WINDOW)).to.equal(true);
    expect(await refusal(acme.create('e', {}, MINUTE))).to.match(/^session\.store_full/);
  });

  it('still refuses a used record as used', async () => {
    const acme = shareOf('acme', 3);
    expect(await acme.create('a', {}, MINUTE)).to.equal(true);
    expect(await acme.create('a', {}, MINUTE)).to.equal(false);
  });
});
