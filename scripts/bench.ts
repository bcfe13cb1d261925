/**
 * `npm run bench`: Gatehouse's request paths against two references measured in the same
 * run (bare Koa; bare Koa + koa-session alone, the floor the session middleware sets), the
 * authenticated request with telemetry on (traces at 100% and at 10% exported over OTLP to
 * a loopback endpoint that drops them, scripts/bench/otlp-sink.ts; metrics only), cold
 * start (on this Node and on Node 24 with the compile cache), memory per idle session,
 * SAML responses through the whole ACS check, and what 1,000 customers' connections cost
 * (a start, memory, each request, finding one by domain: scripts/bench/connection-scale.ts),
 * and 10,000 in a PostgreSQL catalog against one (a start, memory, finding one by domain, a
 * page of the administration API, a change seen by a second instance:
 * scripts/bench/catalog-scale.ts), and, when named, directory sync of 100,000 users
 * (scripts/bench/directory-scale.ts). It prints a table and one line per target
 * (met, or missed and by how much) and writes bench-results/bench.json; it fails only when
 * a run itself goes wrong (a server that does not start, an unexpected status), never
 * because a target is missed. The method is in docs/performance.md.
 *
 * Each server runs as its own child process on core 0 (taskset), the load generator
 * (autocannon) in this process on core 1, over loopback; the Gatehouse rows run the
 * compiled code in dist/ in the production posture with the request log really written.
 * Every row runs once per round: ratios are taken within a round and reported as the
 * median of the rounds with their range, because a shared machine drifts between minutes
 * more than the ratios do.
 *
 * The Cluster row runs the Redis row's signed-in request against a Redis Cluster of three
 * primaries and three replicas that the bench starts on free loopback ports before the
 * rounds and stops after them (scripts/local-redis/; skipped without redis-server).
 *
 * Environment: BENCH_ROUNDS (default 3), BENCH_SECONDS (measured seconds per row, default
 * 6), BENCH_WARMUP_SECONDS (default 2), BENCH_ROWS (some of
 * bare,koa-session,memory,telemetry,telemetry-sampled,telemetry-metrics,connections,redis,cluster,anonymous,challenge,frontchannel;
 * 0 for none), BENCH_EXTRAS (some of
 * cold-start,memory,saml,connections,catalog,federation,directory; 0 for none; catalog starts a throwaway
 * PostgreSQL 17 from the npm binaries, and is skipped where it cannot; federation, a 20 MB signed aggregate read
 * twice in processes of their own, about a minute and 1 GB, is left out unless named; so is directory,
 * 100,000 users and 5,000 groups synced over SCIM as Okta does, a few minutes:
 * scripts/bench/directory-scale.ts), BENCH_MAIN (the entry point cold start runs,
 * default dist/bundle/main.js), BENCH_DIST (another build to load instead of dist/, for a
 * before/after comparison), BENCH_PROFILE=1 (a .cpuprofile per row under
 * bench-results/profiles/<row>/, for scripts/bench/summarize-profile.ts), BENCH_CALLGRIND=1
 * (each row counted once more under valgrind's callgrind, in instructions per request:
 * scripts/bench/callgrind.ts), BENCH_COMPARE (a commit: the memory, Redis and challenge rows once more, served by
 * that commit's build, made once under bench-results/commits/ by scripts/bench/build-commit.ts, in the
 * same rounds; their ratios are printed beside the targets), BENCH_SIDE_BY_SIDE=1 (with
 * BENCH_COMPARE: each of those rows and its twin at the other commit loaded at the same
 * time on the server core, half the connections each, rather than one after the other).
 *
 * The output and bench-results/bench.json name the commit measured (with `+ changes` when the
 * working tree differs from it): a table in docs/performance.md says which commit it is of.
 */
import { spawnSync } from 'node:child_process';
import { createConnection } from 'node:net';
import { cpus } from 'node:os';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startBenchCluster, type BenchCluster } from './bench/bench-cluster.js';
import { buildCommit, type CommitBuild } from './bench/build-commit.js';
import { commitStamp } from './bench/commit-stamp.js';
import { startBenchDiscovery, type BenchDiscovery } from './bench/discovery-server.js';
import { startOtlpSink } from './bench/otlp-sink.js';
import { benchRow, benchRowsTogether } from './bench/bench-row.js';
import { measuredTogether } from './bench/measured-together.js';
import { callgrindAvailable, countInstructionsPerRequest, WINDOWS_AGREE_WITHIN } from './bench/callgrind.js';
import {
  bareKoaColdStartOnce,
  bareNodeStartMs,
  bundleBareKoa,
  coldStartOnce,
  meanOf,
  median,
  writeUnbundledBareKoa,
  type Start,
} from './bench/cold-start.js';
import { projectRoot } from './bench/dist-modules.js';
import type { LoadSettings } from './bench/load.js';
import { writeConnectionFolder } from './bench/connection-folder.js';
import { manyConnectionsFolder, MANY_CONNECTIONS, measureConnectionScale } from './bench/connection-scale.js';
import { measureCatalogScale } from './bench/catalog-scale.js';
import { measureDirectoryScale } from './bench/directory-scale.js';
import { jsonLineOf, pinSelfToLoadCore } from './bench/processes.js';
import {
  report,
  type ColdStart,
  type FederationRead,
  type RowResults,
  type SamlValidation,
  type SecondLineColdStart,
  type SessionMemory,
} from './bench/report.js';
import { productionEnv, REDIS_URL, rowDefinitions } from './bench/rows.js';
import { nodeLine } from './node-line.mjs';

const settings: LoadSettings = {
  connections: 50,
  pipelining: 1,
  warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 2),
  measureSeconds: Number(process.env.BENCH_SECONDS ?? 6),
};
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const profile = process.env.BENCH_PROFILE === '1';
const onlyRows = (
  process.env.BENCH_ROWS ??
  'bare,koa-session,memory,telemetry,telemetry-sampled,telemetry-metrics,connections,redis,cluster,anonymous,challenge,frontchannel'
).split(',');
const extras = new Set(
  process.env.BENCH_EXTRAS === '0'
    ? []
    : (process.env.BENCH_EXTRAS ?? 'cold-start,memory,saml,connections,catalog').split(','),
);
const COLD_STARTS = 11;
/** CI's second Node line, where the bundle's compile cache is measured. */
const SECOND_LINE = 24;
const instructionCounts = process.env.BENCH_CALLGRIND === '1' && callgrindAvailable;
const resultsDir = join(projectRoot, 'bench-results');
const profileDir = profile ? join(resultsDir, 'profiles') : undefined;
const sideBySide = process.env.BENCH_SIDE_BY_SIDE === '1' && process.env.BENCH_COMPARE !== undefined;

async function main(): Promise<void> {
  // Started before this process pins itself (its children would inherit the load core),
  // stopped however the run ends.
  const benchCluster: BenchCluster = onlyRows.includes('cluster')
    ? await startBenchCluster()
    : { skip: 'not asked for' };
  const discovery = onlyRows.includes('frontchannel') ? await startBenchDiscovery() : undefined;
  const otlpSink = onlyRows.some((row) => row === 'telemetry' || row === 'telemetry-sampled')
    ? await startOtlpSink()
    : undefined;
  const compare = process.env.BENCH_COMPARE ? buildCommit(process.env.BENCH_COMPARE) : undefined;
  try {
    await measure(benchCluster, discovery, otlpSink, compare);
  } finally {
    await benchCluster.cluster?.stop();
    await discovery?.stop();
    await otlpSink?.stop();
  }
}

async function measure(
  benchCluster: BenchCluster,
  discovery: BenchDiscovery | undefined,
  otlpSink: { url: string; received(): number } | undefined,
  compare: CommitBuild | undefined,
): Promise<void> {
  const pinned = pinSelfToLoadCore();
  const machine = `node ${process.version}, ${cpus().length} x ${cpus()[0]?.model.trim() ?? 'unknown CPU'}`;
  const commit = commitStamp();
  console.log(`Gatehouse benchmark of ${commit}${compare ? ` (and of ${compare.commit} beside it)` : ''}: ${machine}`);
  console.log(
    pinned
      ? 'servers pinned to core 0, load generator (autocannon) to core 1'
      : 'no CPU pinning (taskset missing or a single core): server and load generator share the CPU',
  );
  console.log(
    `${settings.connections} connections, pipelining ${settings.pipelining}, ${settings.warmupSeconds} s warm-up + ${settings.measureSeconds} s measured per row, ${rounds} round(s)\n`,
  );
  mkdirSync(profileDir ?? resultsDir, { recursive: true });

  const cluster = benchCluster.cluster ? { seeds: benchCluster.cluster.seeds } : { skip: benchCluster.skip };
  const connectionsFolder = manyConnectionsFolder(resultsDir);
  if (onlyRows.includes('connections')) writeConnectionFolder(connectionsFolder, MANY_CONNECTIONS);
  const rows: RowResults[] = rowDefinitions(
    await redisAnswers(REDIS_URL),
    cluster,
    connectionsFolder,
    discovery ?? { skip: 'not asked for' },
    otlpSink ?? { skip: 'not asked for' },
    compare,
  )
    .filter((definition) => onlyRows.includes(definition.key.replace(/-at$/, '')))
    .map((definition) => ({ definition, runs: [] }));
  for (let round = 1; round <= rounds; round++) {
    for (const group of measuredTogether(rows, sideBySide)) {
      const names = group.map((row) => row.definition.name).join(' | beside it | ');
      process.stdout.write(`round ${round}: ${names} ...`);
      const runs =
        group.length === 1
          ? [await benchRow(group[0]!.definition, settings, profileDir)]
          : await benchRowsTogether(
              group.map((row) => row.definition),
              settings,
              profileDir,
            );
      const said = runs.map((run, index) => {
        group[index]!.runs.push(run);
        const { requestsPerSecond, serverCpuMicrosPerRequest } = run.result;
        return `${requestsPerSecond} req/s, ${serverCpuMicrosPerRequest ?? 'n/a'} µs CPU/request`;
      });
      process.stdout.write(` ${said.join(' | ')}\n`);
    }
  }
  // The telemetry row must have exported something, or it measured nothing of the export.
  if (
    otlpSink &&
    rows.some((row) => row.definition.env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined && row.runs.length > 0)
  ) {
    if (otlpSink.received() === 0) throw new Error('the telemetry row exported nothing to the OTLP sink');
    console.log(`OTLP sink: ${otlpSink.received()} exports received and dropped`);
  }
  if (instructionCounts) {
    for (const row of rows) {
      if (row.definition.skip) continue;
      process.stdout.write(`callgrind: ${row.definition.name} ...`);
      row.callgrind = await countInstructionsPerRequest(row.definition, settings.connections, profileDir);
      const { instructionsPerRequest, windows, agreed } = row.callgrind;
      const counts = windows.map((count) => count.toLocaleString('en-US')).join(', ');
      process.stdout.write(
        ` ${instructionsPerRequest.toLocaleString('en-US')} instructions/request (windows: ${counts}${agreed ? '' : `; no two agreed within ${WINDOWS_AGREE_WITHIN * 100}%`})\n`,
      );
    }
  }
  console.log('');
  const context = { settings, rounds, pinned, resultsDir, machine, commit, compared: compare?.commit };
  if (extras.size === 0) return report(rows, {}, context);

  const coldStart = extras.has('cold-start') ? await measureColdStarts() : undefined;
  const memory = extras.has('memory') ? await sessionMemory() : undefined;
  const saml = extras.has('saml') ? await samlValidation() : undefined;
  const federation = extras.has('federation') ? federationMetadata() : undefined;
  const connections = extras.has('connections') ? await measureConnectionScale(resultsDir) : undefined;
  const catalog = extras.has('catalog') ? await measureCatalogScale() : undefined;
  const directory = extras.has('directory') ? await measureDirectoryScale() : undefined;
  process.stdout.write('done\n\n');
  report(rows, { coldStart, memory, saml, federation, connections, catalog, directory }, context);
}

async function measureColdStarts(): Promise<ColdStart> {
  process.stdout.write('cold start ');
  const bareKoa = await bundleBareKoa(join(resultsDir, 'bare-koa', 'main.js'));
  const bareKoaUnbundled = writeUnbundledBareKoa(join(resultsDir, 'bare-koa-unbundled'));
  const coldStarts: Start[] = [];
  const bareKoaStarts: Start[] = [];
  const bareKoaUnbundledStarts: Start[] = [];
  // Starts are short and this machine's neighbours come and go: 11 of each, alternating.
  for (let run = 0; run < COLD_STARTS; run++) {
    coldStarts.push(await coldStartOnce());
    bareKoaStarts.push(await bareKoaColdStartOnce(bareKoa));
    bareKoaUnbundledStarts.push(await bareKoaColdStartOnce(bareKoaUnbundled));
    process.stdout.write('.');
  }
  const nodeStarts: number[] = [];
  for (let run = 0; run < 3; run++) nodeStarts.push(await bareNodeStartMs());
  return {
    runsMs: coldStarts.map((start) => round1(start.ms)),
    medianMs: medianMs(coldStarts),
    cpuMeanMs: cpuMeanMs(coldStarts),
    bareKoaMedianMs: medianMs(bareKoaStarts),
    bareKoaCpuMeanMs: cpuMeanMs(bareKoaStarts),
    bareKoaUnbundledMedianMs: medianMs(bareKoaUnbundledStarts),
    bareNodeMedianMs: round1(median(nodeStarts)),
    secondLine: await secondLineColdStarts(bareKoa),
  };
}

/**
 * Cold start on Node 24: Gatehouse with the compile cache its bundle turns on (in
 * compile-cache/ beside it), filled by one start before those measured, as at every start
 * after a deployment's first; the same bundle with the cache off; bare Koa bundled, with a
 * cache of its own filled the same way (NODE_COMPILE_CACHE, which also covers its entry
 * file). The three alternate, as above.
 */
async function secondLineColdStarts(bareKoa: string): Promise<SecondLineColdStart | undefined> {
  let node: string;
  try {
    node = join(nodeLine(SECOND_LINE), 'node');
  } catch (error) {
    process.stdout.write(` (not on Node ${SECOND_LINE}: ${error instanceof Error ? error.message : String(error)}) `);
    return undefined;
  }
  const cached = { node };
  const uncached = { node, env: { NODE_DISABLE_COMPILE_CACHE: '1' } };
  const bareKoaCached = { node, env: { NODE_COMPILE_CACHE: join(dirname(bareKoa), 'compile-cache') } };
  await coldStartOnce([], cached);
  await bareKoaColdStartOnce(bareKoa, [], bareKoaCached);
  const runs = { cached: [] as Start[], uncached: [] as Start[], bareKoa: [] as Start[] };
  for (let run = 0; run < COLD_STARTS; run++) {
    runs.cached.push(await coldStartOnce([], cached));
    runs.uncached.push(await coldStartOnce([], uncached));
    runs.bareKoa.push(await bareKoaColdStartOnce(bareKoa, [], bareKoaCached));
    process.stdout.write('.');
  }
  const nodeStarts: number[] = [];
  for (let run = 0; run < 3; run++) nodeStarts.push(await bareNodeStartMs(node));
  return {
    version: spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim(),
    runsMs: runs.cached.map((start) => round1(start.ms)),
    medianMs: medianMs(runs.cached),
    cpuMeanMs: cpuMeanMs(runs.cached),
    uncachedMedianMs: medianMs(runs.uncached),
    uncachedCpuMeanMs: cpuMeanMs(runs.uncached),
    bareKoaMedianMs: medianMs(runs.bareKoa),
    bareKoaCpuMeanMs: cpuMeanMs(runs.bareKoa),
    bareNodeMedianMs: round1(median(nodeStarts)),
  };
}

async function sessionMemory(): Promise<SessionMemory> {
  process.stdout.write(' memory ');
  return jsonLineOf<SessionMemory>(['scripts/bench/session-memory.ts', '100000'], productionEnv, 120_000);
}

async function samlValidation(): Promise<SamlValidation> {
  process.stdout.write(' SAML ');
  return jsonLineOf<SamlValidation>(['scripts/bench/saml-validation.ts', '1000'], {}, 300_000);
}

/** A 20 MB signed federation aggregate, read unsigned and signed, each in a process of its own. */
function federationMetadata(): FederationRead[] {
  process.stdout.write(' federation ');
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/bench/federation-metadata.ts', '20'], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (run.status !== 0) throw new Error(`the federation metadata measurement failed: ${run.stderr}`);
  return run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as FederationRead);
}

/** PING over a raw socket: the benchmark needs no Redis client of its own. */
function redisAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

function medianMs(starts: readonly Start[]): number {
  return round1(median(starts.map((start) => start.ms)));
}

function cpuMeanMs(starts: readonly Start[]): number | undefined {
  const mean = meanOf(starts.map((start) => start.cpuMs));
  return mean === undefined ? undefined : round1(mean);
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

await main();
