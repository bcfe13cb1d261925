import type { Clock } from '../../application/ports/clock.js';

/** How often a loaded metadata document is fetched again: certificate rollovers are announced in it days ahead. */
export const METADATA_REFRESH_MS = 60 * 60 * 1000;
/** After a failed refresh, the next attempt waits this long (the last good copy keeps serving meanwhile). */
export const METADATA_RETRY_MS = 5 * 60 * 1000;
/**
 * Before any load has succeeded, a failed one is tried again no sooner than this, the wait
 * doubling with each failure in a row (5, 10, 20 ... seconds) up to METADATA_RETRY_MS.
 * Loading can keep a core busy for seconds (a large federation aggregate whose signature
 * does not verify), and until a load succeeds anyone can ask for one (an anonymous POST
 * to the ACS or the logout path): between attempts every caller gets the last failure at
 * once. Short at first, so that an identity provider that was briefly down at start is
 * soon found.
 */
export const FIRST_LOAD_RETRY_MS = 5 * 1000;

export interface RefreshingMetadataOptions<T> {
  /** Fetches and reads the document; throws a GatehouseError when it cannot. */
  load: () => Promise<T>;
  clock: Clock;
  /** Told of every failed load (a first load or a refresh), and how long until the next may start. */
  onLoadFailed: (error: unknown, retryInMs: number) => void;
  refreshMs?: number;
}

/**
 * A metadata document kept after its first successful load and refreshed in the
 * background when it is older than the refresh period, on first use after that (a sign-in
 * or a readiness probe): no timer keeps the process alive. One load at a time: concurrent
 * callers share the one in flight. A failed refresh keeps the last good copy and is tried
 * again after METADATA_RETRY_MS. Until a first load succeeds, a caller waits for a load
 * and sees its failure; after a failure the callers of the next FIRST_LOAD_RETRY_MS
 * (doubling with each failure, up to METADATA_RETRY_MS) get that failure at once, without
 * a load, so it still says why (the readiness probe reports the provider down meanwhile).
 */
export class RefreshingMetadata<T> {
  readonly #options: RefreshingMetadataOptions<T>;
  #current: T | undefined;
  #nextLoadAt = 0;
  #pending: Promise<T> | undefined;
  /** The failures in a row since the last success, and the last of them. */
  #failures = 0;
  #lastFailure: unknown;

  constructor(options: RefreshingMetadataOptions<T>) {
    this.#options = options;
  }

  /** True once a load has succeeded. */
  get loaded(): boolean {
    return this.#current !== undefined;
  }

  get(): Promise<T> {
    const current = this.#current;
    const due = this.#options.clock.now() >= this.#nextLoadAt;
    if (current === undefined) {
      if (this.#pending || due || this.#failures === 0) return this.#load();
      return Promise.reject(this.#lastFailure);
    }
    if (due && !this.#pending) this.#load().catch(() => undefined); // told through onLoadFailed
    return Promise.resolve(current);
  }

  #load(): Promise<T> {
    this.#pending ??= this.#options.load().then(
      (value) => {
        this.#current = value;
        this.#failures = 0;
        this.#lastFailure = undefined;
        this.#nextLoadAt = this.#options.clock.now() + (this.#options.refreshMs ?? METADATA_REFRESH_MS);
        this.#pending = undefined;
        return value;
      },
      (error: unknown) => {
        this.#failures += 1;
        this.#lastFailure = error;
        const retryInMs =
          this.#current === undefined
            ? Math.min(FIRST_LOAD_RETRY_MS * 2 ** Math.min(this.#failures - 1, 16), METADATA_RETRY_MS)
            : METADATA_RETRY_MS;
        this.#nextLoadAt = this.#options.clock.now() + retryInMs;
        this.#pending = undefined;
        this.#options.onLoadFailed(error, retryInMs);
        throw error;
      },
    );
    return this.#pending;
  }
}
