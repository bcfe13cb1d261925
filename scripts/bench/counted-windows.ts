/**
 * When to stop counting a row under callgrind. A window of requests counts high when V8's
 * optimizing compiler is at work in it, which under callgrind's `--single-threaded` server
 * happens on the counted thread: after a collection discards optimized code that held
 * objects since collected, or when a path taken about once a minute (such as the session's
 * touch of its idle time, a minute being only some thousands of requests under valgrind)
 * first runs in optimized code. In one run of the memory row, five windows read 256,500 to
 * 328,700 instructions a request, the compiler taking from none to 16% of a window, and two
 * windows both reading high is common (273,000 and more, for a build whose windows read
 * 256,000-262,000 otherwise). So windows are counted until the two fewest agree, and the
 * fewest is kept: the request's own cost, without the compiler's bursts.
 */

/** Two windows agree when the larger is within this fraction of the smaller. */
export const WINDOWS_AGREE_WITHIN = 0.01;
/** One window cannot agree with anything: at least two are counted. */
export const MIN_WINDOWS = 2;
/** A row whose windows never agree is reported from its fewest after this many, and says so. */
export const MAX_WINDOWS = 5;

export interface WindowsVerdict {
  /** Count another window. */
  countAnother: boolean;
  /** The fewest instructions per request so far. */
  fewest: number;
  /** Whether the two fewest counts agree within WINDOWS_AGREE_WITHIN. */
  agreed: boolean;
}

/** Given the counts so far (instructions per request, one per window), whether to go on. */
export function judgeWindows(counts: readonly number[]): WindowsVerdict {
  const [fewest = Number.POSITIVE_INFINITY, second = Number.POSITIVE_INFINITY] = [...counts].sort((a, b) => a - b);
  const agreed = counts.length >= MIN_WINDOWS && second <= fewest * (1 + WINDOWS_AGREE_WITHIN);
  return { countAnother: !agreed && counts.length < MAX_WINDOWS, fewest, agreed };
}
