/**
 * Holds the provider's discovered configuration once it has been loaded. Concurrent
 * callers share one attempt; a failed attempt is forgotten, so the next call tries again
 * (an identity provider that was down at startup must not stay "down" until a restart).
 */
export class DiscoveryCache<T> {
  #value: T | undefined;
  #pending: Promise<T> | undefined;

  constructor(private readonly load: () => Promise<T>) {}

  /** True once a discovery has succeeded. */
  get loaded(): boolean {
    return this.#value !== undefined;
  }

  get(): Promise<T> {
    if (this.#value !== undefined) return Promise.resolve(this.#value);
    this.#pending ??= this.load().then(
      (value) => {
        this.#value = value;
        this.#pending = undefined;
        return value;
      },
      (err: unknown) => {
        this.#pending = undefined;
        throw err;
      },
    );
    return this.#pending;
  }
}
