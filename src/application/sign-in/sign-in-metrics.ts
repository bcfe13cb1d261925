import type { Telemetry } from '../ports/telemetry.js';
import { secondsSince } from '../seconds-since.js';

/** How a callback ended: accepted (with its cause, when not an ordinary sign-in) or refused with its stable code. */
export type SignInOutcome = { outcome: 'success'; cause?: string } | { outcome: 'failure'; code: string };

/**
 * One completed callback in the metrics: the sign-in counted by provider and outcome (the
 * cause of an accepted one, the code of a refused one), and how long the callback took
 * since `started` (a `performance.now()` reading).
 */
export function recordSignIn(telemetry: Telemetry, provider: string, started: number, ended: SignInOutcome): void {
  const { outcome } = ended;
  telemetry.count('gatehouse.authentication.sign_ins', {
    provider,
    outcome,
    ...(ended.outcome === 'failure' ? { 'error.type': ended.code } : ended.cause ? { cause: ended.cause } : {}),
  });
  telemetry.duration('gatehouse.authentication.callback.duration', secondsSince(started), { provider, outcome });
}
