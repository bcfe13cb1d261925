/**
 * A counter grows by a positive whole number only: anything else (zero, a fraction, NaN)
 * is a bug, refused before it reaches a store (Redis INCRBY would refuse a fraction, and
 * a memory counter would silently count it).
 */
export function checkAmount(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount < 1) {
    throw new RangeError(`A counter grows by a positive integer, not ${amount}.`);
  }
}
