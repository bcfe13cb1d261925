import { expect } from 'chai';
import { readTarget, type Target } from '../../../scripts/bench/targets.js';

const throughput: Target = {
  name: 'memory store vs the floor',
  value: 0.8,
  goal: 0.85,
  direction: 'atLeast',
  unit: 'x',
};
const memory: Target = { name: 'memory per idle session', value: 979, goal: 1024, direction: 'atMost', unit: 'bytes' };

describe('bench: the one-line reading of a target', () => {
  it('says a missed target is missed, and by how much', () => {
    const reading = readTarget(throughput);
    expect(reading.met).to.equal(false);
    expect(reading.line).to.equal('MISS  memory store vs the floor: 0.80x, target at least 0.85x: missed by 0.05x');
  });

  it('says a target within its goal is met', () => {
    expect(readTarget(memory)).to.deep.include({
      met: true,
      line: 'met   memory per idle session: 979 bytes, target at most 1024 bytes',
    });
    expect(readTarget({ ...throughput, value: 0.85 }).met, 'the goal itself').to.equal(true);
  });

  it('reads a cost above its ceiling as missed', () => {
    const reading = readTarget({ ...memory, value: 1100 });
    expect(reading.met).to.equal(false);
    expect(reading.line).to.contain('missed by 76 bytes');
  });

  it('says a value this run did not measure is not measured, not met', () => {
    expect(readTarget({ ...memory, value: undefined })).to.deep.include({
      met: undefined,
      line: 'n/a   memory per idle session: not measured (target at most 1024 bytes)',
    });
  });
});
