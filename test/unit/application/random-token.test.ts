import { expect } from 'chai';
import { RandomPool, randomToken } from '../../../src/application/random-token.js';

/** A source that counts its draws and keeps the arrays it filled, over the platform's own bytes. */
function countingSource() {
  const filled: Uint8Array[] = [];
  return {
    filled,
    fill: (into: Uint8Array) => {
      filled.push(into);
      crypto.getRandomValues(into);
    },
  };
}

describe('RandomPool (random bytes drawn a pool at a time, each handed out once)', () => {
  it('hands out distinct bytes across many refills, in sizes that do not divide the pool', () => {
    const source = countingSource();
    const pool = new RandomPool(source.fill, 256);
    const seen = new Set<string>();
    for (let i = 0; i < 3_000; i++) {
      const bytes = pool.bytes(i % 2 === 0 ? 12 : 16);
      expect(bytes.length).to.equal(i % 2 === 0 ? 12 : 16);
      seen.add(Buffer.from(bytes).toString('hex'));
    }
    expect(seen.size).to.equal(3_000);
    // 42,000 bytes from a 256-byte pool: one draw per refill, not one per token.
    expect(source.filled.length).to.be.within(165, 190);
  });

  it('draws from the source once per pool, not once per request', () => {
    const source = countingSource();
    const pool = new RandomPool(source.fill, 4096);
    for (let i = 0; i < 128; i++) pool.bytes(32);
    expect(source.filled.length).to.equal(1);
    pool.bytes(32);
    expect(source.filled.length).to.equal(2);
  });

  it('zeroes what it hands out, so the pool never holds a token in use', () => {
    const source = countingSource();
    const pool = new RandomPool(source.fill, 256);
    const first = pool.bytes(16);
    const second = pool.bytes(16);
    const held = source.filled[0]!;
    expect(Array.from(held.subarray(0, 32)).every((byte) => byte === 0)).to.equal(true);
    // What it has not handed out is still there, and what it handed out is the caller's copy.
    expect(Array.from(held.subarray(32)).some((byte) => byte !== 0)).to.equal(true);
    expect(Array.from(first).some((byte) => byte !== 0)).to.equal(true);
    expect(Array.from(second).some((byte) => byte !== 0)).to.equal(true);
  });

  it('draws a request larger than a sixteenth of the pool on its own, leaving the pool as it was', () => {
    const source = countingSource();
    const pool = new RandomPool(source.fill, 256);
    pool.bytes(8);
    const large = pool.bytes(17);
    expect(large.length).to.equal(17);
    expect(source.filled.map((array) => array.length)).to.deep.equal([256, 17]);
    pool.bytes(8);
    expect(source.filled.length).to.equal(2);
  });

  it('refuses a count that is not a positive whole number', () => {
    const pool = new RandomPool();
    for (const count of [0, -1, 1.5, Number.NaN]) expect(() => pool.bytes(count)).to.throw(RangeError);
  });

  it('randomToken: 32 bytes make 43 base64url characters, never the same twice', () => {
    const tokens = new Set(Array.from({ length: 1_000 }, () => randomToken()));
    expect(tokens.size).to.equal(1_000);
    for (const token of tokens) expect(token).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(randomToken(12)).to.match(/^[A-Za-z0-9_-]{16}$/);
  });
});
