import { expect } from 'chai';
import type { RunningGatehouse } from './start-gatehouse.js';

/** The audit events an app logged since line `from`. */
export function auditEventsSince(app: RunningGatehouse, from: number): Record<string, unknown>[] {
  return app.logs
    .slice(from)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.audit === true);
}

/** What a provider's logout of one session records: its `signout` by the provider, and `sessions.ended` with count 1. */
export function expectEndedByProvider(events: Record<string, unknown>[], subject: string): void {
  expect(events.find((event) => event.event === 'signout')).to.include({
    by: 'provider',
    cause: 'provider_logout',
    provider: 'OpenIdConnect',
    subject,
  });
  expect(events.find((event) => event.event === 'sessions.ended')).to.include({
    by: 'provider',
    cause: 'provider_logout',
    count: 1,
  });
}
