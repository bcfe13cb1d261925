/** Seconds since a `performance.now()` reading (monotonic, unlike the clock), for a duration histogram. */
export function secondsSince(started: number): number {
  return (performance.now() - started) / 1000;
}
