import { expect } from 'chai';
import {
  PORTAL_ABSOLUTE_MS,
  PORTAL_IDLE_MS,
  PortalSessions,
} from '../../../../src/application/portal/portal-sessions.js';
import type { SetupLink } from '../../../../src/application/portal/setup-links.js';
import { FixedClock } from '../../../support/fixed-clock.js';
import { STORE_CLOCKS } from './store-clocks.js';

const MINUTE_MS = 60_000;
const LINK: SetupLink = {
  id: 'link-1',
  organization: 'acme',
  connection: 'acme',
  expiresAt: Date.UTC(2027, 0, 1),
  createdBy: 'api-key:k1',
};

describe('portal sessions: the idle timeout and the absolute lifetime, each at its edge', () => {
  it('times out after 30 minutes idle and ends 12 hours after it began', () => {
    expect(PORTAL_IDLE_MS).to.equal(30 * MINUTE_MS);
    expect(PORTAL_ABSOLUTE_MS).to.equal(12 * 60 * MINUTE_MS);
  });

  for (const { name, store } of STORE_CLOCKS) {
    describe(`on ${name}`, () => {
      let clock: FixedClock;
      let sessions: PortalSessions;
      beforeEach(() => {
        clock = new FixedClock();
        sessions = new PortalSessions(store(clock), () => clock.now());
      });

      it('is there a millisecond before the idle timeout, gone a millisecond after it', async () => {
        const kept = await sessions.start(LINK);
        const left = await sessions.start(LINK);
        await clock.sleep(PORTAL_IDLE_MS - 1);
        expect(await sessions.load(kept.token)).to.include({ organization: 'acme', connection: 'acme' });
        await clock.sleep(2);
        expect(await sessions.load(left.token)).to.equal(undefined);
      });

      it('counts the idle time from the last request, not from the start', async () => {
        const { token } = await sessions.start(LINK);
        await clock.sleep(20 * MINUTE_MS);
        expect(await sessions.load(token)).not.to.equal(undefined);
        await clock.sleep(PORTAL_IDLE_MS - 1);
        expect(await sessions.load(token), '50 minutes in, 30 of them idle').not.to.equal(undefined);
        await clock.sleep(PORTAL_IDLE_MS + 1);
        expect(await sessions.load(token)).to.equal(undefined);
      });

      it('ends at its absolute lifetime however active: there a millisecond before, gone a millisecond after', async () => {
        const { token } = await sessions.start(LINK);
        const step = 20 * MINUTE_MS;
        for (let at = step; at < PORTAL_ABSOLUTE_MS; at += step) {
          await clock.sleep(step);
          expect(await sessions.load(token), `${at / MINUTE_MS} minutes in`).not.to.equal(undefined);
        }
        // The loop stopped at 11 h 40 min; the last request came 20 minutes before the end.
        await clock.sleep(step - 1);
        expect(await sessions.load(token), 'a millisecond before 12 hours').not.to.equal(undefined);
        await clock.sleep(2);
        expect(await sessions.load(token), 'a millisecond after 12 hours, 2 ms idle').to.equal(undefined);
        // Ended for good: gone from the store, not merely refused once.
        expect(await sessions.load(token)).to.equal(undefined);
      });
    });
  }
});
