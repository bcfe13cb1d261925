import { expect } from 'chai';
import {
  ALLOWED_GROWTH,
  compareWithBaseline,
  gateOutcome,
  type PerfBaseline,
} from '../../../scripts/bench/perf-gate-compare.js';
import { requestInstructions } from '../../../scripts/bench/callgrind.js';

const baseline: PerfBaseline = {
  commit: 'abc1234',
  why: 'test',
  node: 'v20.20.2',
  rows: { memory: 250_000, challenge: 400_000, 'saml-acs': 20_000_000 },
};

describe('bench: the performance gate against its baseline', () => {
  it('passes when no row grew by more than 5%, and prints every row', () => {
    const outcome = gateOutcome(baseline, { memory: 262_000, challenge: 380_000, 'saml-acs': 20_000_000 }, 'v20.20.2');
    expect(outcome.exitCode).to.equal(0);
    expect(outcome.text).to.include('| memory | 250,000 | 262,000 | +4.8% | ok |');
    expect(outcome.text).to.include('| challenge | 400,000 | 380,000 | -5.0% | ok |');
    expect(outcome.text).to.include('| saml-acs | 20,000,000 | 20,000,000 | +0.0% | ok |');
    expect(outcome.text).to.include('passed');
    expect(outcome.text).to.include('abc1234');
  });

  it('fails when a row grew by more than 5%, naming it with its difference', () => {
    const outcome = gateOutcome(baseline, { memory: 263_000, challenge: 400_000, 'saml-acs': 20_000_000 }, 'v20.20.2');
    expect(outcome.exitCode).to.equal(1);
    expect(outcome.text).to.include('| memory | 250,000 | 263,000 | +5.2% | FAIL: grew more than 5% |');
    expect(outcome.text).to.include('| challenge | 400,000 | 400,000 | +0.0% | ok |');
    expect(outcome.text).to.include('FAILED');
  });

  it('allows exactly 5% and no more', () => {
    const at = baseline.rows.memory! * (1 + ALLOWED_GROWTH);
    const rows = { ...baseline.rows };
    expect(compareWithBaseline(baseline, { ...rows, memory: at }, baseline.node).passed).to.equal(true);
    expect(compareWithBaseline(baseline, { ...rows, memory: at + 1 }, baseline.node).passed).to.equal(false);
  });

  it('fails for a row counted without a baseline, and for a baseline row not counted', () => {
    const added = gateOutcome(baseline, { ...baseline.rows, redis: 300_000 }, baseline.node);
    expect(added.exitCode).to.equal(1);
    expect(added.text).to.include('| redis | n/a | 300,000 | n/a | FAIL: no baseline |');
    const { challenge: _dropped, ...fewer } = baseline.rows;
    const dropped = gateOutcome(baseline, fewer, baseline.node);
    expect(dropped.exitCode).to.equal(1);
    expect(dropped.text).to.include('| challenge | 400,000 | n/a | n/a | FAIL: not counted |');
  });

  it('fails on another Node.js version, whose counts are not comparable, saying so', () => {
    const outcome = gateOutcome(baseline, baseline.rows, 'v24.11.1');
    expect(outcome.exitCode).to.equal(1);
    expect(outcome.text).to.include('counted on Node.js v20.20.2, this is v24.11.1');
  });
});

describe('bench: a count the gate cannot use', () => {
  it('fails a row whose count is negative or not a whole number, rather than calling it a gain', () => {
    for (const broken of [-9_223_372_036_271_754, 0, Number.NaN, 1.5e20]) {
      const outcome = gateOutcome(baseline, { memory: broken, challenge: 400_000, 'saml-acs': 20_000_000 }, 'v20.20.2');
      expect(outcome.exitCode, String(broken)).to.equal(1);
      expect(outcome.text).to.include('FAIL: not a count');
    }
  });

  it('keeps no window whose compiler count is not part of its total (callgrind_annotate printed a wrapped one)', () => {
    expect(requestInstructions(1_000_000, 200_000, 4)).to.equal(200_000);
    expect(requestInstructions(1_000_000, 0, 4)).to.equal(250_000);
    expect(requestInstructions(1_000_000, 9_223_372_037_271_754, 4)).to.equal(undefined);
    expect(requestInstructions(1_000_000, 1_000_000, 4)).to.equal(undefined);
    expect(requestInstructions(1_000_000, -1, 4)).to.equal(undefined);
  });
});
