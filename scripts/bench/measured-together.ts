import type { RowDefinition } from './rows.js';

/**
 * The rows of a round in the order they run: each alone, or, side by side (BENCH_SIDE_BY_SIDE=1
 * with BENCH_COMPARE), each row of this checkout together with its `-at` twin, the same
 * row served by the other commit's build: both servers on the server core at once, each
 * loaded with half the connections (bench-row.ts, benchRowsTogether). Skipped rows are left out.
 */
export function measuredTogether<Row extends { definition: Pick<RowDefinition, 'key' | 'skip'> }>(
  rows: readonly Row[],
  sideBySide: boolean,
): Row[][] {
  const runnable = rows.filter((row) => !row.definition.skip);
  if (!sideBySide) return runnable.map((row) => [row]);
  const byKey = new Map<string, Row>(runnable.map((row) => [row.definition.key, row]));
  return runnable
    .filter((row) => !row.definition.key.endsWith('-at'))
    .map((row) => {
      const twin = byKey.get(`${row.definition.key}-at`);
      return twin ? [row, twin] : [row];
    });
}
