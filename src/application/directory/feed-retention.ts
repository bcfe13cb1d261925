import type { DirectoryStore } from '../ports/directory-store.js';
import type { Logger } from '../ports/logger.js';

const DAY_MS = 24 * 60 * 60_000;
/** How many changes one step removes: a step holds the feed for a moment, never minutes. */
const STEP = 5_000;
/** The most steps one run takes (a million changes); what is left goes at the next run. */
const MAX_STEPS = 200;

export interface RetentionTiming {
  /** Between two runs. */
  everyMs: number;
  /** Before the first run: a random part of it, so instances started together do not run together. */
  firstWithinMs: number;
}

/** Hourly, the first within ten minutes of the start. */
const HOURLY: RetentionTiming = { everyMs: 60 * 60_000, firstWithinMs: 10 * 60_000 };

/**
 * The feed's retention (`Directory:ChangeRetentionDays`): the changes older than the
 * retention are removed, a step at a time, by every instance while it runs (removing what
 * another instance removed already removes nothing). A subscriber that resumes after a
 * position older than the retention finds what is left after it: the documented bound on
 * how long a subscriber may stay away. A store out of reach is said once and tried at the
 * next run.
 */
export class FeedRetention {
  #failing = false;

  constructor(
    private readonly store: Pick<DirectoryStore, 'removeChangesBefore'>,
    private readonly retentionDays: number,
    private readonly logger: Logger,
    private readonly now: () => number,
    private readonly timing: RetentionTiming = HOURLY,
  ) {}

  /** Runs now and then until the returned stop is called. */
  start(): () => void {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const schedule = (delayMs: number) => {
      timer = setTimeout(() => {
        void this.run().finally(() => {
          if (!stopped) schedule(this.timing.everyMs);
        });
      }, delayMs);
      timer.unref();
    };
    schedule(Math.floor(Math.random() * this.timing.firstWithinMs));
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }

  /** One run: removes what is past the retention, step by step; how many changes it removed. */
  async run(): Promise<number> {
    const before = this.now() - this.retentionDays * DAY_MS;
    let removed = 0;
    try {
      for (let step = 0; step < MAX_STEPS; step += 1) {
        const count = await this.store.removeChangesBefore(before, STEP);
        removed += count;
        if (count < STEP) break;
      }
    } catch (error) {
      if (!this.#failing) {
        this.logger.warn(
          { reason: codeOf(error), removed },
          'the directory feed could not be pruned (its store out of reach); trying again at the next run',
        );
      }
      this.#failing = true;
      return removed;
    }
    this.#failing = false;
    if (removed > 0) {
      this.logger.info(
        { removed, retentionDays: this.retentionDays },
        'directory changes past their retention removed',
      );
    }
    return removed;
  }
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : typeof error;
}
