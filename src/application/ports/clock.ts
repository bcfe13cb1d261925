/** Current time, so that expiry rules can be tested without waiting. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const ClockToken = Symbol('Clock');
