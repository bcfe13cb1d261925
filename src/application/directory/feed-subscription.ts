import type { ChangeHandler, DirectorySubscription } from '../ports/directory.js';
import type { DirectoryStore } from '../ports/directory-store.js';
import type { Logger } from '../ports/logger.js';

/** How many changes one read of the feed takes: a burst is handed in pages, not loaded whole. */
const PAGE = 200;
/** The first pause after a failure (the handler's or the store's), doubled at each failure in a row up to the last. */
const FIRST_PAUSE_MS = 500;
const LAST_PAUSE_MS = 30_000;

export type FeedReader = Pick<DirectoryStore, 'changesAfter' | 'watch'>;

/**
 * One subscriber following the directory feed from a position: it reads what comes after
 * the last change handled whenever the store announces a change (on any instance), hands
 * each change to the handler and waits for it before the next, and moves its position only
 * past a change that was handled (or is another organization's). A failure, of the handler
 * or of the store, leaves the position where it was and tries again after a pause: the
 * change is handed again, at least once, and nothing after it overtakes it.
 */
export class FeedSubscription implements DirectorySubscription {
  #position: string | undefined;
  #stopped = false;
  /** An announcement came since the last read began: read again once this one ends. */
  #announced = false;
  #reading: Promise<void> | undefined;
  #pause: NodeJS.Timeout | undefined;
  #pauseMs = FIRST_PAUSE_MS;
  readonly #unwatch: () => void;

  constructor(
    private readonly feed: FeedReader,
    private readonly handle: ChangeHandler,
    after: string | undefined,
    private readonly organization: string | undefined,
    private readonly logger: Logger,
  ) {
    this.#position = after;
    // The watch calls once as soon as it listens: that first read hands what came meanwhile.
    this.#unwatch = feed.watch(() => this.#announce());
  }

  get position(): string | undefined {
    return this.#position;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unwatch();
    clearTimeout(this.#pause);
    await this.#reading;
  }

  #announce(): void {
    this.#announced = true;
    if (this.#stopped || this.#reading || this.#pause) return;
    this.#reading = this.#readAll().finally(() => {
      this.#reading = undefined;
      if (this.#announced && !this.#pause) this.#announce();
    });
  }

  /** Hands every change after the position, page by page, until none is left or a failure pauses it. */
  async #readAll(): Promise<void> {
    while (this.#announced && !this.#stopped) {
      this.#announced = false;
      let changes;
      try {
        changes = await this.feed.changesAfter(this.#position, PAGE);
      } catch (error) {
        this.#failed({ reason: codeOf(error) }, 'the directory feed could not be read; trying again');
        return;
      }
      for (const change of changes) {
        if (this.#stopped) return;
        if (this.organization === undefined || change.organization === this.organization) {
          try {
            await this.handle(change);
          } catch (error) {
            this.#failed(
              { change: change.id, position: change.position, kind: change.kind, error: codeOf(error) },
              'a directory change subscriber failed; the change is handed again',
            );
            return;
          }
        }
        this.#position = change.position;
      }
      this.#pauseMs = FIRST_PAUSE_MS;
      // A full page: more may be waiting behind it.
      if (changes.length === PAGE) this.#announced = true;
    }
  }

  #failed(fields: object, message: string): void {
    this.logger.warn({ ...fields, retryInMs: this.#pauseMs }, message);
    this.#pause = setTimeout(() => {
      this.#pause = undefined;
      this.#announce();
    }, this.#pauseMs);
    this.#pause.unref();
    this.#pauseMs = Math.min(this.#pauseMs * 2, LAST_PAUSE_MS);
  }
}

/**
 * What a failure is called in the log: its code or its class, never its message, which
 * the application's own code wrote and may carry a person's values.
 */
function codeOf(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? code : error.name;
  }
  return typeof error;
}
