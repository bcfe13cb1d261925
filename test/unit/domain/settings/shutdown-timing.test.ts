import { expect } from 'chai';
import { checkSettings } from '../../../../src/domain/settings/check-settings.js';
import { defaultSettings } from '../../../../src/domain/settings/default-settings.js';
import {
  CLOSING_SECONDS,
  forcedExitDelayMs,
  TERMINATION_GRACE_SECONDS,
} from '../../../../src/domain/settings/shutdown-timing.js';

const DRAIN = 'ProjectTemplate:Hosting:ShutdownDrainSeconds';

/** True when the startup rules accept this drain. */
function accepted(seconds: number): boolean {
  const settings = defaultSettings([]);
  settings.Hosting.ShutdownDrainSeconds = seconds;
  const context = {
    environment: 'development' as const,
    unknownKeys: [],
    providers: [],
    isRoutedPath: () => false,
  };
  return !checkSettings(settings, context).some((p) => p.key === DRAIN && p.severity === 'error');
}

/** The largest drain the startup rules accept, to the millisecond, found by asking them (not a constant that could disagree). */
function largestAcceptedDrain(): number {
  let low = 0; // accepted
  let high = 3600; // refused
  expect(accepted(low)).to.equal(true);
  expect(accepted(high)).to.equal(false);
  while (high - low > 0.001) {
    const middle = (low + high) / 2;
    if (accepted(middle)) low = middle;
    else high = middle;
  }
  return low;
}

describe('forcedExitDelayMs (when a signalled process exits anyway)', () => {
  it('comes after the longest accepted drain plus the time to close, and before the host kills the process', () => {
    const drain = largestAcceptedDrain();
    const forced = forcedExitDelayMs({ ShutdownDrainSeconds: drain });
    expect(forced - drain * 1000, 'time left to close after the drain').to.be.at.least(CLOSING_SECONDS * 1000);
    expect(forced, 'inside the grace period').to.be.below(TERMINATION_GRACE_SECONDS * 1000);
  });

  it('follows the configured drain: every drain gets the same time to close, a short one no more', () => {
    for (const drain of [0, 0.5, 5, 20]) {
      const forced = forcedExitDelayMs({ ShutdownDrainSeconds: drain });
      expect(forced - drain * 1000, String(drain)).to.equal(CLOSING_SECONDS * 1000);
    }
  });
});
