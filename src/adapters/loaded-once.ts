/**
 * A value made once, at its first use, and kept after the first success: a provider's
 * discovered configuration, a lazily imported module, the compiled SAML schema.
 * Concurrent callers share one attempt; a failed attempt is forgotten, so the next call
 * tries again (a provider that was down at startup must not stay "down" until a restart).
 */
export class LoadedOnce<T> {
  #loaded = false;
  #value: T | undefined;
  #pending: Promise<T> | undefined;

  constructor(private readonly load: () => Promise<T>) {}

  /** True once a load has succeeded. */
  get loaded(): boolean {
    return this.#loaded;
  }

  get(): Promise<T> {
    if (this.#loaded) return Promise.resolve(this.#value as T);
    this.#pending ??= this.load().then(
      (value) => {
        this.#value = value;
        this.#loaded = true;
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
