/**
 * The feed's subscribers of the embedded store. One process owns the file (directory-file.ts
 * refuses a second), so every change is made here: a subscriber is called soon after a write
 * commits (the commits of a burst together once), and once when it is added (reading the feed
 * then finds what came before). Its own failure is never the watch's.
 */
export class DirectoryWatch {
  readonly #subscribers = new Set<() => void>();
  #scheduled = false;

  add(onChanged: () => void): () => void {
    // A function added twice is called once per subscription: each is its own entry.
    const subscriber = () => onChanged();
    this.#subscribers.add(subscriber);
    setImmediate(() => this.#subscribers.has(subscriber) && call(subscriber));
    return () => {
      this.#subscribers.delete(subscriber);
    };
  }

  /** After a write committed: subscribers read the feed again (a write that appended nothing costs them one read). */
  committed(): void {
    if (this.#scheduled || this.#subscribers.size === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      for (const subscriber of [...this.#subscribers]) call(subscriber);
    });
  }

  stop(): void {
    this.#subscribers.clear();
  }
}

function call(subscriber: () => void): void {
  try {
    subscriber();
  } catch {
    // A subscriber's failure is its own: the others are still called, and the watch goes on.
  }
}
