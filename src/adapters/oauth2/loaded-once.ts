/**
 * A value loaded from the network once (a provider's discovered configuration) and kept
 * after the first success. Concurrent callers share one attempt; a failed attempt is
 * forgotten, so the next call tries again (a provider that was down at startup must not
 * stay "down" until a restart).
 */
export class LoadedOnce<T> {
  #value: T | undefined;
  #pending: Promise<T> | undefined;

  constructor(private readonly load: () => Promise<T>) {}

  /** True once a load has succeeded. */
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
