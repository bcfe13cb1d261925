import type { Logger } from '../../application/ports/logger.js';
import { CatalogListener } from './catalog-listener.js';
import { reasonOf } from './catalog-errors.js';
import { DIRECTORY_CHANNEL } from './directory-feed.js';

/**
 * The feed's subscribers of one store, on one listening connection opened for the first and
 * closed with the last. Each is called soon after any instance appends to the feed (the
 * notifications of a burst together once), once when it is added (reading the feed then
 * finds what it missed), and again each time the lost connection listens again (what was
 * appended meanwhile was announced to no one). Its own failure is never the watch's.
 */
export class DirectoryWatch {
  readonly #subscribers = new Set<() => void>();
  #listener: CatalogListener | undefined;
  #listening = false;
  #scheduled = false;
  #reportedLost = false;

  constructor(
    private readonly connectionString: string,
    private readonly reconnectMs: number,
    private readonly logger: Logger,
  ) {}

  add(onChanged: () => void): () => void {
    // A function added twice is called once: each subscription is its own entry.
    const subscriber = () => onChanged();
    this.#subscribers.add(subscriber);
    if (!this.#listener) this.#listen();
    else if (this.#listening) setImmediate(() => this.#subscribers.has(subscriber) && call(subscriber));
    return () => {
      if (!this.#subscribers.delete(subscriber) || this.#subscribers.size > 0) return;
      void this.stop();
    };
  }

  async stop(): Promise<void> {
    this.#subscribers.clear();
    const listener = this.#listener;
    this.#listener = undefined;
    this.#listening = false;
    await listener?.stop();
  }

  #listen(): void {
    const listener = new CatalogListener(
      this.connectionString,
      this.reconnectMs,
      {
        listening: () => {
          this.#listening = true;
          if (this.#reportedLost) this.logger.info({}, 'the directory feed is followed again');
          this.#reportedLost = false;
          this.#notify();
        },
        notified: () => this.#notify(),
        lost: (error) => {
          this.#listening = false;
          if (this.#reportedLost) return;
          this.#reportedLost = true;
          this.logger.warn(
            { reason: reasonOf(error) },
            'the directory feed cannot be followed (PostgreSQL out of reach); trying again',
          );
        },
      },
      { channel: DIRECTORY_CHANNEL, applicationName: 'gatehouse-directory-listener' },
    );
    this.#listener = listener;
    listener.start();
  }

  #notify(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      for (const subscriber of [...this.#subscribers]) call(subscriber);
    });
  }
}

function call(subscriber: () => void): void {
  try {
    subscriber();
  } catch {
    // A subscriber's failure is its own: the others are still called, and the watch goes on.
  }
}
