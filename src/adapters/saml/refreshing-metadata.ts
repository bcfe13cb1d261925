import type { Clock } from '../../application/ports/clock.js';

/** How often a loaded metadata document is fetched again: certificate rollovers are announced in it days ahead. */
export const METADATA_REFRESH_MS = 60 * 60 * 1000;
/** After a failed refresh, the next attempt waits this long (the last good copy keeps serving meanwhile). */
export const METADATA_RETRY_MS = 5 * 60 * 1000;

export interface RefreshingMetadataOptions<T> {
  /** Fetches and reads the document; throws a GatehouseError when it cannot. */
  load: () => Promise<T>;
  clock: Clock;
  /** Told of a refresh that failed while the last good copy kept serving (its error code only). */
  onRefreshFailed: (error: unknown) => void;
  refreshMs?: number;
  retryMs?: number;
}

/**
 * A metadata document kept after its first successful load and refreshed in the
 * background when it is older than the refresh period, on first use after that (a sign-in
 * or a readiness probe): no timer keeps the process alive. A failed refresh keeps the last
 * good copy and is tried again after `retryMs`; concurrent callers share one load. Until
 * a first load succeeds, every caller waits for one and sees its failure (then the next
 * caller tries again).
 */
export class RefreshingMetadata<T> {
  readonly #options: RefreshingMetadataOptions<T>;
  #current: T | undefined;
  #nextLoadAt = 0;
  #pending: Promise<T> | undefined;

  constructor(options: RefreshingMetadataOptions<T>) {
    this.#options = options;
  }

  /** True once a load has succeeded. */
  get loaded(): boolean {
    return this.#current !== undefined;
  }

  get(): Promise<T> {
    const current = this.#current;
    if (current === undefined) return this.#load();
    if (this.#options.clock.now() >= this.#nextLoadAt && !this.#pending) {
      this.#load().catch((error: unknown) => this.#options.onRefreshFailed(error));
    }
    return Promise.resolve(current);
  }

  #load(): Promise<T> {
    this.#pending ??= this.#options.load().then(
      (value) => {
        this.#current = value;
        this.#nextLoadAt = this.#options.clock.now() + (this.#options.refreshMs ?? METADATA_REFRESH_MS);
        this.#pending = undefined;
        return value;
      },
      (error: unknown) => {
        this.#nextLoadAt = this.#options.clock.now() + (this.#options.retryMs ?? METADATA_RETRY_MS);
        this.#pending = undefined;
        throw error;
      },
    );
    return this.#pending;
  }
}
