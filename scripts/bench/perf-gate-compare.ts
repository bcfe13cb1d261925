/**
 * The performance gate's judgement (scripts/perf-gate.ts), apart from the counting: each
 * row's instructions per request now against the committed baseline, and whether any grew
 * by more than the allowance.
 */

/** A row may grow by this fraction before the gate fails: callgrind's counts of one build agree well within it. */
export const ALLOWED_GROWTH = 0.05;

/** What `npm run perf:baseline` commits: where and with what the figures were counted, and the figures. */
export interface PerfBaseline {
  /** The commit counted (`git rev-parse --short HEAD`, with `+ changes` when the tree was not clean). */
  commit: string;
  /** Why the baseline is what it is: the change that moved it, with its figure. */
  why: string;
  /** The Node.js version counted on: another version runs other code, and its counts are not comparable. */
  node: string;
  /** Instructions per request, by row key. */
  rows: Record<string, number>;
}

export interface RowVerdict {
  key: string;
  baseline: number | undefined;
  now: number | undefined;
  /** (now - baseline) / baseline; undefined when either is missing. */
  change: number | undefined;
  failed: boolean;
  /** Why it failed, when it did. */
  reason?: string;
}

export interface GateVerdict {
  rows: RowVerdict[];
  passed: boolean;
  /** Set when the counts cannot be compared at all (another Node.js). */
  notComparable?: string;
}

/**
 * Every row of either side is judged: one that grew past the allowance fails, and so does
 * a row missing from either side (a row added needs a baseline, a row dropped a deliberate
 * baseline commit). A row that shrank passes; the table shows it, and the baseline keeps
 * the old figure until someone commits a new one.
 */
export function compareWithBaseline(
  baseline: PerfBaseline,
  now: Record<string, number>,
  node: string,
  allowed: number = ALLOWED_GROWTH,
): GateVerdict {
  const keys = [...new Set([...Object.keys(baseline.rows), ...Object.keys(now)])];
  const rows = keys.map((key): RowVerdict => {
    const before = baseline.rows[key];
    const after = now[key];
    if (before === undefined)
      return { key, baseline: before, now: after, change: undefined, failed: true, reason: 'no baseline' };
    if (after === undefined)
      return { key, baseline: before, now: after, change: undefined, failed: true, reason: 'not counted' };
    // A count no request could have (none, negative, not a whole number) is a broken count, not a gain.
    if (!Number.isSafeInteger(after) || after <= 0)
      return { key, baseline: before, now: after, change: undefined, failed: true, reason: 'not a count' };
    const change = (after - before) / before;
    return change > allowed
      ? { key, baseline: before, now: after, change, failed: true, reason: `grew more than ${percent(allowed)}` }
      : { key, baseline: before, now: after, change, failed: false };
  });
  const notComparable =
    node === baseline.node
      ? undefined
      : `the baseline was counted on Node.js ${baseline.node}, this is ${node}: run the gate on ${baseline.node}, or commit a baseline counted on ${node} (npm run perf:baseline)`;
  return { rows, passed: notComparable === undefined && rows.every((row) => !row.failed), notComparable };
}

/** The table the gate prints: every row, its baseline, the count now and the difference. */
export function verdictTable(verdict: GateVerdict, baseline: PerfBaseline): string {
  const lines = [
    `instructions per request under callgrind, against the baseline of ${baseline.commit} (scripts/bench/perf-baseline.json)`,
    '',
    '| row | baseline | now | difference | |',
    '|---|---:|---:|---:|---|',
    ...verdict.rows.map(
      (row) =>
        `| ${row.key} | ${count(row.baseline)} | ${count(row.now)} | ${row.change === undefined ? 'n/a' : signedPercent(row.change)} | ${row.failed ? `FAIL: ${row.reason}` : 'ok'} |`,
    ),
    '',
  ];
  if (verdict.notComparable) lines.push(`FAIL: ${verdict.notComparable}`);
  else if (verdict.passed) lines.push(`passed: no row grew more than ${percent(ALLOWED_GROWTH)}`);
  else
    lines.push(
      `FAILED: a row grew more than ${percent(ALLOWED_GROWTH)}. Find the cost (docs/performance.md, "The performance gate") and remove it, or, if the feature is worth it, commit a new baseline with npm run perf:baseline and say why (the feature, its figure).`,
    );
  return lines.join('\n');
}

function count(value: number | undefined): string {
  return value === undefined ? 'n/a' : value.toLocaleString('en-US');
}

function percent(fraction: number): string {
  return `${Math.round(fraction * 1000) / 10}%`;
}

function signedPercent(fraction: number): string {
  return `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(1)}%`;
}

/** What the gate prints and the exit code it ends with: 0 only when every row passed. */
export function gateOutcome(
  baseline: PerfBaseline,
  now: Record<string, number>,
  node: string,
): { exitCode: 0 | 1; text: string } {
  const verdict = compareWithBaseline(baseline, now, node);
  return { exitCode: verdict.passed ? 0 : 1, text: verdictTable(verdict, baseline) };
}
