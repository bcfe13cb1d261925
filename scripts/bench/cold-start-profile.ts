/**
 * Where a cold start's CPU goes: Gatehouse's bundle (what `npm start` runs) against bare
 * Koa + @koa/router bundled and started the same way, each start under `--cpu-prof` (a
 * sample every 100 µs), the two alternating on the server core, sorted into the phases of
 * a start (start-phases.ts). Run after `npm run build`:
 *
 *   tsx scripts/bench/cold-start-profile.ts [starts of each, default 10]
 *
 * Prints two Markdown tables of mean milliseconds of CPU per start, by phase and in more
 * detail, and keeps the profiles in bench-results/cold-start-profile/. Sampling slows a
 * start down, so the totals read higher than the bench's unprofiled cold start; it is the
 * two columns side by side, and their difference, that say where Gatehouse's extra time goes.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bareKoaColdStartOnce, bundleBareKoa, coldStartOnce } from './cold-start.js';
import { projectRoot } from './dist-modules.js';
import { groupOf, startPhases, type StartPhases } from './start-phases.js';

const starts = Number(process.argv[2] ?? 10);
if (!Number.isInteger(starts) || starts < 1)
  throw new Error(`usage: cold-start-profile.ts [starts of each, a whole number from 1; not "${process.argv[2]}"]`);
const resultsDir = join(projectRoot, 'bench-results', 'cold-start-profile');
rmSync(resultsDir, { recursive: true, force: true });
const profileDir = (which: string) => join(resultsDir, which);
const flags = (which: string) => ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${profileDir(which)}`];

const bareKoa = await bundleBareKoa(join(resultsDir, 'bare-koa', 'main.js'));
for (const which of ['gatehouse-profiles', 'bare-koa-profiles']) mkdirSync(profileDir(which), { recursive: true });
process.stdout.write(`${starts} profiled starts of each `);
for (let run = 0; run < starts; run++) {
  await coldStartOnce(flags('gatehouse-profiles'));
  await bareKoaColdStartOnce(bareKoa, flags('bare-koa-profiles'));
  process.stdout.write('.');
}
process.stdout.write('\n\n');

const inBundle = (url: string) => url.includes('/dist/bundle/') || url.includes('/bare-koa/main.js');
/** Mean microseconds per start, per phase, over every profile in `dir`. */
function meanPhases(dir: string): StartPhases {
  const files = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'));
  const totals: StartPhases = new Map();
  for (const file of files)
    for (const [phase, micros] of startPhases(join(dir, file), inBundle))
      totals.set(phase, (totals.get(phase) ?? 0) + micros / files.length);
  return totals;
}
const gatehouse = meanPhases(profileDir('gatehouse-profiles'));
const bare = meanPhases(profileDir('bare-koa-profiles'));

const ms = (micros: number) => (micros / 1000).toFixed(1);
const signed = (micros: number) => `${micros > 0 ? '+' : ''}${ms(micros)}`;
const total = (phases: StartPhases) => [...phases.values()].reduce((sum, micros) => sum + micros, 0);

/** Sums both columns by `rowOf(phase)`; prints the rows, the largest difference first, then the total. */
function printTable(title: string, rowOf: (phase: string) => string): void {
  const rows = new Map<string, [number, number]>();
  for (const phase of new Set([...gatehouse.keys(), ...bare.keys()])) {
    const sums = rows.get(rowOf(phase)) ?? [0, 0];
    rows.set(rowOf(phase), [sums[0] + (gatehouse.get(phase) ?? 0), sums[1] + (bare.get(phase) ?? 0)]);
  }
  console.log(`| ${title} | Gatehouse, ms | bare Koa, ms | difference |\n|---|---:|---:|---:|`);
  const byDifference = [...rows].sort(([, [a, b]], [, [c, d]]) => c - d - (a - b));
  for (const [row, [ours, theirs]] of byDifference)
    console.log(`| ${row} | ${ms(ours)} | ${ms(theirs)} | ${signed(ours - theirs)} |`);
  const [ours, theirs] = [total(gatehouse), total(bare)];
  console.log(
    `| **all CPU until the first answer** | **${ms(ours)}** | **${ms(theirs)}** | **${signed(ours - theirs)}** |\n`,
  );
}

printTable('phase of the start', groupOf);
// In detail: parts under half a millisecond in both columns are summed into one row per phase.
const SMALL_MICROS = 500;
printTable('part of the start', (phase) =>
  Math.max(gatehouse.get(phase) ?? 0, bare.get(phase) ?? 0) < SMALL_MICROS && groupOf(phase) !== phase
    ? `${groupOf(phase)}: the rest`
    : phase,
);
