/** Current time and waiting, so that expiry rules and waits can be tested without waiting. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves once `ms` milliseconds have passed on this clock. */
  sleep(ms: number): Promise<void>;
}

export const ClockToken = Symbol('Clock');
