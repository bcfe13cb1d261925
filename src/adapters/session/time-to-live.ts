/**
 * Every write carries a time-to-live, and a record that never expires is a bug: reject
 * zero, negative and non-finite values instead of storing forever (Redis would refuse
 * `PX 0` anyway). Fractions round up because Redis `PX` takes whole milliseconds.
 */
export function checkTimeToLive(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`A session time-to-live must be a positive number of milliseconds, not ${ttlMs}.`);
  }
  return Math.ceil(ttlMs);
}
