import { expect } from 'chai';
import { measuredTogether } from '../../../scripts/bench/measured-together.js';

type Key = 'bare' | 'koa-session' | 'memory' | 'memory-at' | 'redis' | 'redis-at' | 'challenge' | 'challenge-at';
const row = (key: Key, skip?: string) => ({ definition: { key, ...(skip ? { skip } : {}) } });
const keys = (groups: { definition: { key: string } }[][]) => groups.map((group) => group.map((r) => r.definition.key));

describe('bench: which rows a round measures together', () => {
  const rows = [
    row('bare'),
    row('koa-session'),
    row('memory'),
    row('memory-at'),
    row('redis', 'no Redis'),
    row('redis-at', 'no Redis'),
    row('challenge'),
    row('challenge-at'),
  ];

  it('measures every row alone, in order, when not side by side (skipped rows left out)', () => {
    expect(keys(measuredTogether(rows, false))).to.deep.equal([
      ['bare'],
      ['koa-session'],
      ['memory'],
      ['memory-at'],
      ['challenge'],
      ['challenge-at'],
    ]);
  });

  it('side by side, measures each compared row with its twin at the other commit, the others alone', () => {
    expect(keys(measuredTogether(rows, true))).to.deep.equal([
      ['bare'],
      ['koa-session'],
      ['memory', 'memory-at'],
      ['challenge', 'challenge-at'],
    ]);
  });

  it('side by side, a row whose twin was skipped runs alone, and a skipped twin is never run', () => {
    const twinSkipped = [row('memory'), row('memory-at', 'build failed'), row('redis'), row('redis-at')];
    expect(keys(measuredTogether(twinSkipped, true))).to.deep.equal([['memory'], ['redis', 'redis-at']]);
  });
});
