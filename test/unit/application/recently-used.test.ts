import { expect } from 'chai';
import { RecentlyUsed } from '../../../src/application/sign-in/recently-used.js';
import { checkAgainstRecencyModel } from '../../support/recency-model.js';

describe('RecentlyUsed (a bounded map)', () => {
  it('forgets the least recently used entry once full; a read counts as a use', () => {
    const cache = new RecentlyUsed<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).to.equal(1);
    cache.set('c', 3);
    expect(cache.size).to.equal(2);
    expect(cache.get('b')).to.equal(undefined);
    expect(cache.get('a')).to.equal(1);
    expect(cache.get('c')).to.equal(3);
  });

  it('overwriting a key keeps one entry and counts as a use, as a read does', () => {
    const cache = new RecentlyUsed<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 10);
    cache.set('c', 3);
    expect(cache.get('a')).to.equal(10);
    expect(cache.get('b')).to.equal(undefined);
  });

  it('never forgets an entry read more often than once per half capacity, however many others come and go', () => {
    const cache = new RecentlyUsed<string, number>(10);
    cache.set('hot', 0);
    for (let i = 0; i < 1000; i++) {
      cache.set(`cold-${i}`, i);
      if (i % 4 === 0) expect(cache.get('hot'), `after ${i}`).to.equal(0);
    }
    expect(cache.size).to.equal(10);
  });

  it('forgets an entry no longer read once the others have all moved past it', () => {
    const cache = new RecentlyUsed<string, number>(10);
    cache.set('once', 0);
    for (let i = 0; i < 10; i++) cache.set(`other-${i}`, i);
    expect(cache.get('once')).to.equal(undefined);
  });

  it('forgets entries oldest first through thousands of evictions, with uses, rewrites and deletions in between', async () => {
    const cache = new RecentlyUsed<string, number>(16);
    await checkAgainstRecencyModel(
      {
        write: (key, step) => cache.set(key, step),
        read: (key) => cache.get(key) !== undefined,
        delete: (key) => cache.delete(key),
        size: () => cache.size,
      },
      16,
    );
  });

  it('deletes on request and refuses a capacity that is not a positive whole number', () => {
    const cache = new RecentlyUsed<string, number>(1);
    cache.set('a', 1);
    cache.delete('a');
    expect(cache.get('a')).to.equal(undefined);
    expect(() => new RecentlyUsed(0)).to.throw(RangeError);
    expect(() => new RecentlyUsed(1.5)).to.throw(RangeError);
  });
});
