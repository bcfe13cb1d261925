import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { FeedRetention } from '../../../../src/application/directory/feed-retention.js';
import { RecordingLogger } from '../../../integration/postgres/catalog-harness.js';

const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 10, 29);

/** A feed that removes what `counts` says, call by call (then 0), or fails while `failing` says so. */
function feed(counts: number[], failing: () => boolean = () => false) {
  const calls: Array<[number, number]> = [];
  return {
    calls,
    removeChangesBefore: async (before: number, limit: number) => {
      calls.push([before, limit]);
      if (failing()) throw Object.assign(new Error('SENTINEL driver text'), { code: 'catalog.unavailable' });
      return counts.shift() ?? 0;
    },
  };
}

describe('FeedRetention: the feed keeps Directory:ChangeRetentionDays of changes', () => {
  it('removes what is older than the retention, a full step after another, until a step comes back short', async () => {
    const store = feed([5_000, 5_000, 12]);
    const logger = new RecordingLogger();
    expect(await new FeedRetention(store, 30, logger, () => NOW).run()).to.equal(10_012);
    expect(store.calls).to.deep.equal([
      [NOW - 30 * DAY_MS, 5_000],
      [NOW - 30 * DAY_MS, 5_000],
      [NOW - 30 * DAY_MS, 5_000],
    ]);
    expect(logger.lines).to.deep.equal([
      'info directory changes past their retention removed {"removed":10012,"retentionDays":30}',
    ]);
  });

  it('says nothing when nothing was old enough', async () => {
    const logger = new RecordingLogger();
    expect(await new FeedRetention(feed([]), 7, logger, () => NOW).run()).to.equal(0);
    expect(logger.lines).to.deep.equal([]);
  });

  it('stops a run after 200 full steps, leaving the rest to the next', async () => {
    const store = feed(Array.from({ length: 300 }, () => 5_000));
    expect(await new FeedRetention(store, 30, new RecordingLogger(), () => NOW).run()).to.equal(1_000_000);
    expect(store.calls).to.have.length(200);
  });

  it('says a store out of reach once, with its code and not its text, and removes again once it is back', async () => {
    let down = true;
    const store = feed([3], () => down);
    const logger = new RecordingLogger();
    const retention = new FeedRetention(store, 30, logger, () => NOW);
    expect(await retention.run()).to.equal(0);
    expect(await retention.run()).to.equal(0);
    expect(logger.lines).to.have.length(1);
    expect(logger.lines[0]).to.include('"reason":"catalog.unavailable"').and.not.include('SENTINEL');
    down = false;
    expect(await retention.run()).to.equal(3);
  });

  it('runs again and again once started, and no more once stopped', async () => {
    const store = feed([]);
    const stop = new FeedRetention(store, 30, new RecordingLogger(), () => NOW, {
      everyMs: 10,
      firstWithinMs: 1,
    }).start();
    await sleep(100);
    stop();
    const runs = store.calls.length;
    expect(runs).to.be.greaterThan(2);
    await sleep(60);
    expect(store.calls.length).to.equal(runs);
  });
});
