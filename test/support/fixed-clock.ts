import type { Clock } from '../../src/application/ports/clock.js';

/** A clock that moves only when a test says so, to test expiry without waiting. */
export class FixedClock implements Clock {
  private current: number;

  constructor(startMs: number = Date.UTC(2026, 0, 1)) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  /** Moves the clock on by `ms` at once; resolves after the work already queued has run. */
  sleep(ms: number): Promise<void> {
    this.advance(ms);
    return new Promise((resolve) => setImmediate(resolve));
  }
}
