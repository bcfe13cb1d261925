import { encodeBase64urlNoPadding } from '@oslojs/encoding';

/**
 * Random bytes handed out once each, drawn from a cryptographic source `size` bytes at a
 * time, as Node does for `randomUUID`: a draw costs about 4.6 µs whatever its size (on
 * Node 20 here: 32 bytes 4.6 µs, 4,096 bytes 7 µs; the call costs, not the bytes), and an
 * anonymous challenge takes three tokens (the browser's binding, `state`, the PKCE
 * verifier) on the path a flood of them takes. Bytes handed out are zeroed in the pool at
 * once, so it never holds a token in use; a request larger than a sixteenth of the pool
 * is drawn on its own.
 */
export class RandomPool {
  readonly #pool: Uint8Array;
  #handedOut: number;

  constructor(
    /** Fills its argument with random bytes: the platform's `crypto.getRandomValues`. */
    private readonly fill: (into: Uint8Array) => void = (into) => void crypto.getRandomValues(into),
    size = 4096,
  ) {
    this.#pool = new Uint8Array(size);
    this.#handedOut = size;
  }

  bytes(count: number): Uint8Array {
    if (!Number.isInteger(count) || count < 1) throw new RangeError(`count must be a positive integer, not ${count}.`);
    const pool = this.#pool;
    if (count > pool.length / 16) {
      const own = new Uint8Array(count);
      this.fill(own);
      return own;
    }
    if (this.#handedOut + count > pool.length) {
      this.fill(pool);
      this.#handedOut = 0;
    }
    const start = this.#handedOut;
    const drawn = pool.slice(start, start + count);
    pool.fill(0, start, start + count);
    this.#handedOut = start + count;
    return drawn;
  }
}

const platformPool = new RandomPool();

/**
 * An unguessable token: `bytes` random bytes from the platform's cryptographic source,
 * base64url without padding (256 bits make 43 characters).
 */
export function randomToken(bytes: number = 32): string {
  return encodeBase64urlNoPadding(platformPool.bytes(bytes));
}
