import { expect } from 'chai';
import {
  FIRST_LOAD_RETRY_MS,
  METADATA_REFRESH_MS,
  METADATA_RETRY_MS,
  RefreshingMetadata,
} from '../../../src/adapters/saml/refreshing-metadata.js';
import { FixedClock } from '../../support/fixed-clock.js';

/** A loader whose answers the test sets; counts its calls. */
function loader() {
  const state = { calls: 0, next: 'v1' as string | Error };
  const load = async () => {
    state.calls += 1;
    if (state.next instanceof Error) throw state.next;
    return state.next;
  };
  return { state, load };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('RefreshingMetadata (the identity provider metadata kept and refreshed)', () => {
  it('loads once, then serves the copy until the refresh period has passed', async () => {
    const clock = new FixedClock();
    const { state, load } = loader();
    const metadata = new RefreshingMetadata({ load, clock, onLoadFailed: () => undefined });
    expect(await metadata.get()).to.equal('v1');
    clock.advance(METADATA_REFRESH_MS - 1);
    state.next = 'v2';
    expect(await metadata.get()).to.equal('v1');
    expect(state.calls).to.equal(1);
  });

  it('after the period, refreshes in the background: the caller gets the last copy at once, the next one the new', async () => {
    const clock = new FixedClock();
    const { state, load } = loader();
    const metadata = new RefreshingMetadata({ load, clock, onLoadFailed: () => undefined });
    await metadata.get();
    clock.advance(METADATA_REFRESH_MS);
    state.next = 'v2';
    expect(await metadata.get()).to.equal('v1');
    await settle();
    expect(await metadata.get()).to.equal('v2');
    expect(state.calls).to.equal(2);
  });

  it('a failed refresh keeps the last good copy, is reported, and is retried only after the retry delay', async () => {
    const clock = new FixedClock();
    const { state, load } = loader();
    const failures: unknown[] = [];
    const metadata = new RefreshingMetadata({ load, clock, onLoadFailed: (error) => failures.push(error) });
    await metadata.get();
    clock.advance(METADATA_REFRESH_MS);
    state.next = new Error('down');
    expect(await metadata.get()).to.equal('v1');
    await settle();
    expect(failures).to.have.length(1);
    expect(await metadata.get()).to.equal('v1');
    expect(state.calls, 'no retry before the delay').to.equal(2);
    clock.advance(METADATA_RETRY_MS);
    state.next = 'v3';
    await metadata.get();
    await settle();
    expect(await metadata.get()).to.equal('v3');
  });

  it('before a first success, concurrent callers share one load and see its failure', async () => {
    const clock = new FixedClock();
    const { state, load } = loader();
    state.next = new Error('down');
    const metadata = new RefreshingMetadata({ load, clock, onLoadFailed: () => undefined });
    const [a, b] = await Promise.allSettled([metadata.get(), metadata.get()]);
    expect([a?.status, b?.status]).to.deep.equal(['rejected', 'rejected']);
    expect(state.calls, 'concurrent callers share one load').to.equal(1);
    expect(metadata.loaded).to.equal(false);
  });

  it('after a failed first load, every caller gets that failure at once, without a load, until the wait has passed', async () => {
    const clock = new FixedClock();
    const { state, load } = loader();
    const down = new Error('down');
    state.next = down;
    const told: Array<[unknown, number]> = [];
    const metadata = new RefreshingMetadata({ load, clock, onLoadFailed: (error, wait) => told.push([error, wait]) });
    await metadata.get().catch(() => undefined);
    expect(told).to.deep.equal([[down, FIRST_LOAD_RETRY_MS]]);
    state.next = 'v1';
    clock.advance(FIRST_LOAD_RETRY_MS - 1);
    for (let i = 0; i < 5; i++) {
      const refused = await metadata.get().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused, 'the last failure, which says why').to.equal(down);
    }
    expect(state.calls, 'no load during the wait').to.equal(1);
    clock.advance(1);
    expect(await metadata.get()).to.equal('v1');
    expect(state.calls).to.equal(2);
    expect(metadata.loaded).to.equal(true);
  });

  it('the wait doubles with each failure in a row, from 5 seconds up to 5 minutes, one load per wait', async () => {
    const clock = new FixedClock();
    const { state, load } = loader();
    state.next = new Error('down');
    const waits: number[] = [];
    const metadata = new RefreshingMetadata({ load, clock, onLoadFailed: (_error, wait) => waits.push(wait) });
    for (let attempt = 0; attempt < 9; attempt++) {
      await metadata.get().catch(() => undefined);
      const wait = waits.at(-1) ?? 0;
      clock.advance(wait - 1);
      await metadata.get().catch(() => undefined);
      expect(state.calls, `no load 1 ms before the wait of ${wait} ms has passed`).to.equal(attempt + 1);
      clock.advance(1);
    }
    expect(waits).to.deep.equal([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
    expect(METADATA_RETRY_MS).to.equal(300_000);
  });

  it('a success ends the backing off: after it, a failed refresh waits the retry delay, the last good copy serving', async () => {
    const clock = new FixedClock();
    const { state, load } = loader();
    state.next = new Error('down');
    const waits: number[] = [];
    const metadata = new RefreshingMetadata({ load, clock, onLoadFailed: (_error, wait) => waits.push(wait) });
    await metadata.get().catch(() => undefined);
    clock.advance(FIRST_LOAD_RETRY_MS);
    await metadata.get().catch(() => undefined);
    clock.advance(2 * FIRST_LOAD_RETRY_MS);
    state.next = 'v1';
    expect(await metadata.get()).to.equal('v1');
    clock.advance(METADATA_REFRESH_MS);
    state.next = new Error('down again');
    expect(await metadata.get()).to.equal('v1');
    await settle();
    expect(waits).to.deep.equal([5_000, 10_000, METADATA_RETRY_MS]);
  });
});
