import { expect } from 'chai';
import { RecentlyUsed } from '../../../src/application/sign-in/recently-used.js';

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

  it('overwriting a key keeps one entry and makes it the most recent', () => {
    const cache = new RecentlyUsed<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 10);
    cache.set('c', 3);
    expect(cache.get('a')).to.equal(10);
    expect(cache.get('b')).to.equal(undefined);
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
