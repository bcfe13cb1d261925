import { expect } from 'chai';
import {
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
    const metadata = new RefreshingMetadata({ load, clock, onRefreshFailed: () => undefined });
    expect(await metadata.get()).to.equal('v1');
    clock.advance(METADATA_REFRESH_MS - 1);
    state.next = 'v2';
    expect(await metadata.get()).to.equal('v1');
    expect(state.calls).to.equal(1);
  });

  it('after the period, refreshes in the background: the caller gets the last copy at once, the next one the new', async () => {
    const clock = new FixedClock();
    const { state, load } = loader();
    const metadata = new RefreshingMetadata({ load, clock, onRefreshFailed: () => undefined });
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
    const metadata = new RefreshingMetadata({ load, clock, onRefreshFailed: (error) => failures.push(error) });
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

  it('before a first success every caller waits for a load and sees its failure; the next caller tries again', async () => {
    const clock = new FixedClock();
    const { state, load } = loader();
    state.next = new Error('down');
    const metadata = new RefreshingMetadata({ load, clock, onRefreshFailed: () => undefined });
    const [a, b] = await Promise.allSettled([metadata.get(), metadata.get()]);
    expect([a?.status, b?.status]).to.deep.equal(['rejected', 'rejected']);
    expect(state.calls, 'concurrent callers share one load').to.equal(1);
    expect(metadata.loaded).to.equal(false);
    state.next = 'v1';
    expect(await metadata.get()).to.equal('v1');
    expect(metadata.loaded).to.equal(true);
  });
});
