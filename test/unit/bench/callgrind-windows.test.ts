import { expect } from 'chai';
import { MAX_WINDOWS, judgeWindows } from '../../../scripts/bench/callgrind.js';

describe('bench: how many callgrind windows a row is counted for', () => {
  it('goes on after one window, whatever it read', () => {
    expect(judgeWindows([256_000])).to.deep.equal({ countAnother: true, fewest: 256_000, agreed: false });
  });

  it('stops when two windows agree within 1%, keeping the fewer', () => {
    expect(judgeWindows([258_300, 256_100])).to.deep.equal({ countAnother: false, fewest: 256_100, agreed: true });
  });

  it('goes on while a window read high (the optimizing compiler at work in it)', () => {
    expect(judgeWindows([256_051, 300_488])).to.deep.include({ countAnother: true, agreed: false });
  });

  it('judges by the two fewest, wherever they fall among the windows', () => {
    expect(judgeWindows([300_488, 256_051, 320_000, 257_900])).to.deep.equal({
      countAnother: false,
      fewest: 256_051,
      agreed: true,
    });
  });

  it('two windows both reading high do not agree with a clean one', () => {
    expect(judgeWindows([273_087, 290_000, 256_051])).to.deep.include({ countAnother: true, fewest: 256_051 });
  });

  it('stops at the last window allowed, reporting the fewest and that none agreed', () => {
    const counts = Array.from({ length: MAX_WINDOWS }, (_, index) => 200_000 + index * 10_000).reverse();
    expect(judgeWindows(counts)).to.deep.equal({ countAnother: false, fewest: 200_000, agreed: false });
  });
});
