/** A search at least this long is a slow one: it walked rows no index led it to. */
export const SLOW_SEARCH_MS = 10;

/** Organizations remembered at most: beyond it, those whose share is whole again are forgotten first. */
const MAX_REMEMBERED = 10_000;

interface Share {
  /** Milliseconds left; negative after a search longer than what was left. */
  left: number;
  /** When `left` was last brought up to date. */
  at: number;
}

/**
 * Each organization's share of the embedded store's time spent on slow searches. node:sqlite
 * is synchronous: a search no index serves (`displayName co` at 100,000 users) holds the
 * event loop, and every organization's requests with it, for up to half a second. Without a
 * share, one organization's directory token (or its members on the people page) could send
 * such searches back to back and stall everyone.
 *
 * A slow search (SLOW_SEARCH_MS or more) spends its whole time from its organization's share,
 * which refills at `msPerMinute` a minute up to that much; fast ones (an indexed lookup,
 * about a millisecond) spend nothing, so a directory's sync by lookups is never slowed. Once
 * a share is spent, `retryAfterMs` says how long until it is above zero again: the store
 * refuses that organization's searches meanwhile, and only its own.
 */
export class SearchBudget {
  readonly #msPerMinute: number;
  readonly #now: () => number;
  readonly #shares = new Map<string, Share>();

  constructor(msPerMinute: number, now: () => number = () => performance.now()) {
    this.#msPerMinute = msPerMinute;
    this.#now = now;
  }

  /** 0 when the organization may search now; else the milliseconds until it may. */
  retryAfterMs(organization: string): number {
    const share = this.#shareNow(organization);
    if (!share || share.left > 0) return 0;
    return Math.ceil(((-share.left + 1) * 60_000) / this.#msPerMinute);
  }

  /** Counts a search of `ms` against the organization's share when it was a slow one. */
  spend(organization: string, ms: number): void {
    if (ms < SLOW_SEARCH_MS) return;
    const share = this.#shareNow(organization) ?? { left: this.#msPerMinute, at: this.#now() };
    share.left -= ms;
    this.#shares.set(organization, share);
    if (this.#shares.size > MAX_REMEMBERED) this.#forgetWhole();
  }

  /** The organization's share refilled to now; undefined (and forgotten) once whole. */
  #shareNow(organization: string): Share | undefined {
    const share = this.#shares.get(organization);
    if (!share) return undefined;
    const now = this.#now();
    share.left = Math.min(this.#msPerMinute, share.left + ((now - share.at) * this.#msPerMinute) / 60_000);
    share.at = now;
    if (share.left < this.#msPerMinute) return share;
    this.#shares.delete(organization);
    return undefined;
  }

  #forgetWhole(): void {
    for (const organization of [...this.#shares.keys()]) this.#shareNow(organization);
  }
}
