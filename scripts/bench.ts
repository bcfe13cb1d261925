/**
 * `npm run bench`: throughput and latency of Gatehouse against bare Koa, cold start and
 * memory per idle session. A script that reports, not a timed test: it prints a table
 * and writes bench-results/bench.json; it fails only when a run itself goes wrong
 * (a server that does not start, an unexpected status), never because a target is missed.
 *
 * Each server runs as its own child process on core 0 (taskset), the load generator
 * (autocannon) in this process on core 1, over loopback. The Gatehouse rows run the
 * compiled code in dist/ (npm run bench builds first) with the production posture
 * (NODE_ENV=production, plain http on loopback) and the request log really written.
 * Where `perf stat` can count instructions (Debian's linux-perf), each row also reports the
 * user-space instructions the server executed per request: a figure that, unlike req/s,
 * barely moves with other work on a shared machine.
 *
 * Environment, for investigating: BENCH_SECONDS (measured seconds per row, default 8),
 * BENCH_WARMUP_SECONDS (default 2), BENCH_ROWS (some of bare,koa-session,memory,redis,anonymous),
 * BENCH_EXTRAS=0 (no cold start or memory), BENCH_MAIN (the entry point cold start runs,
 * default dist/bundle/main.js, what npm start runs), BENCH_DIST (another build of the sources to
 * load instead of dist/, for a before/after comparison), BENCH_PROFILE=1 (each server writes
 * .cpuprofile files under bench-results/profiles/<row>/; summarize the main thread's,
 * `CPU.*.0.001.cpuprofile`, with `tsx scripts/bench/summarize-profile.ts <file>`).
 */
import type { ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bareKoaColdStartOnce, bareNodeStartMs, coldStartOnce, median } from './bench/cold-start.js';
import { projectRoot } from './bench/dist-modules.js';
import { measureLoad, type LoadResult, type LoadSettings } from './bench/load.js';
import { cpuSecondsOf, pinSelfToLoadCore, spawnNode, stop, waitForLine } from './bench/processes.js';

const settings: LoadSettings = {
  connections: 50,
  pipelining: 1,
  warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 2),
  measureSeconds: Number(process.env.BENCH_SECONDS ?? 8),
};
const profile = process.env.BENCH_PROFILE === '1';
const onlyRows = (process.env.BENCH_ROWS ?? 'bare,koa-session,memory,redis,anonymous').split(',');
const extras = process.env.BENCH_EXTRAS !== '0';
const resultsDir = join(projectRoot, 'bench-results');
const profileDir = join(resultsDir, 'profiles');
const REDIS_URL = 'redis://127.0.0.1:6379';

/** The production posture over plain http: a loopback PublicOrigin is accepted in production. */
const productionEnv = {
  NODE_ENV: 'production',
  ProjectTemplate__Hosting__PublicOrigin: 'http://127.0.0.1',
  // Production requires it (the Secure cookie); the bench talks to the app directly over http.
  ProjectTemplate__Hosting__TrustProxy: 'true',
  ProjectTemplate__Logging__Level: 'info',
};

interface RowDefinition {
  key: string;
  name: string;
  script: string;
  env: Record<string, string>;
  path: string;
  expectedStatus: number;
  /** Sends the signed-in session cookie (and checks that the path refuses a request without it). */
  authenticated: boolean;
  skip?: string;
}

interface Row {
  key: string;
  name: string;
  path: string;
  expectedStatus: number;
  result?: LoadResult;
  skipped?: string;
  requestLogLines?: number;
}

async function main(): Promise<void> {
  const pinned = pinSelfToLoadCore();
  console.log(
    `Gatehouse benchmark: node ${process.version}, ${cpus().length} x ${cpus()[0]?.model.trim() ?? 'unknown CPU'}`,
  );
  console.log(
    pinned
      ? 'servers pinned to core 0, load generator (autocannon) to core 1'
      : 'no CPU pinning (taskset missing or a single core): server and load generator share the CPU',
  );
  console.log(
    `${settings.connections} connections, pipelining ${settings.pipelining}, ${settings.warmupSeconds} s warm-up + ${settings.measureSeconds} s measured per row\n`,
  );
  mkdirSync(resultsDir, { recursive: true });
  if (profile) mkdirSync(profileDir, { recursive: true });

  const redisReachable = await redisAnswers(REDIS_URL);
  const memoryStore = { ...productionEnv, ProjectTemplate__Session__Store: 'Memory' };
  const definitions: RowDefinition[] = [
    {
      key: 'bare',
      name: 'bare Koa + @koa/router (reference)',
      script: 'scripts/bench/bare-koa-server.ts',
      env: {},
      path: '/api/app-info',
      expectedStatus: 200,
      authenticated: false,
    },
    {
      key: 'koa-session',
      name: 'bare Koa + koa-session alone, same record (floor)',
      script: 'scripts/bench/koa-session-server.ts',
      env: {},
      path: '/api/app-info',
      expectedStatus: 200,
      authenticated: true,
    },
    {
      key: 'memory',
      name: 'Gatehouse, memory store, authenticated',
      script: 'scripts/bench/gatehouse-server.ts',
      env: memoryStore,
      path: '/api/app-info',
      expectedStatus: 200,
      authenticated: true,
    },
    {
      key: 'redis',
      name: 'Gatehouse, Redis store, authenticated',
      script: 'scripts/bench/gatehouse-server.ts',
      env: {
        ...productionEnv,
        ProjectTemplate__Session__Store: 'Redis',
        ProjectTemplate__Session__Redis__Url: REDIS_URL,
        ProjectTemplate__Session__Redis__KeyPrefix: `gatehouse-bench:${process.pid}:${Date.now()}:`,
      },
      path: '/api/app-info',
      expectedStatus: 200,
      authenticated: true,
      skip: redisReachable ? undefined : `Redis not reachable at ${REDIS_URL}`,
    },
    {
      key: 'anonymous',
      name: 'Gatehouse, anonymous GET / (302 to login)',
      script: 'scripts/bench/gatehouse-server.ts',
      env: memoryStore,
      path: '/',
      expectedStatus: 302,
      authenticated: false,
    },
    // The reference again, last: other work on the machine drifts, and the ratios use the mean of both runs.
    {
      key: 'bare',
      name: 'bare Koa + @koa/router (reference, run again)',
      script: 'scripts/bench/bare-koa-server.ts',
      env: {},
      path: '/api/app-info',
      expectedStatus: 200,
      authenticated: false,
    },
  ];
  const rows: Row[] = [];
  for (const definition of definitions) {
    if (!onlyRows.includes(definition.key)) continue;
    rows.push(
      definition.skip
        ? {
            key: definition.key,
            name: definition.name,
            path: definition.path,
            expectedStatus: definition.expectedStatus,
            skipped: definition.skip,
          }
        : await benchRow(definition),
    );
  }
  if (!extras) {
    report(rows, undefined, undefined, { redisReachable, pinned });
    return;
  }

  process.stdout.write('cold start ');
  const coldStarts: number[] = [];
  const bareKoaStarts: number[] = [];
  for (let run = 0; run < 5; run++) {
    coldStarts.push(await coldStartOnce({ ...productionEnv, ProjectTemplate__Session__Store: 'Memory' }));
    bareKoaStarts.push(await bareKoaColdStartOnce());
    process.stdout.write('.');
  }
  const nodeStarts: number[] = [];
  for (let run = 0; run < 3; run++) nodeStarts.push(await bareNodeStartMs());
  const coldStart: ColdStart = {
    runsMs: coldStarts.map(round1),
    medianMs: round1(median(coldStarts)),
    bareKoaMedianMs: round1(median(bareKoaStarts)),
    bareNodeMedianMs: round1(median(nodeStarts)),
  };
  process.stdout.write(' memory ');
  const memory = await sessionMemory(100_000);
  process.stdout.write(' SAML ');
  const saml = await samlValidation(1000);
  process.stdout.write('done\n\n');

  report(rows, coldStart, memory, { redisReachable, pinned }, saml);
}

/** Starts the server, checks it answers as expected, loads it, stops it. */
async function benchRow({ key, name, script, env, path, expectedStatus, authenticated }: RowDefinition): Promise<Row> {
  process.stdout.write(`${name} ...`);
  const logFile = join(tmpdir(), `gatehouse-bench-${process.pid}-${Date.now()}.log`);
  // One folder per row: node names each thread's profile itself (the module loader's hooks thread writes one too).
  const nodeArgs = [
    ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, slug(name))}`] : []),
    '--import',
    'tsx',
    script,
  ];
  const child = spawnNode(nodeArgs, { ...env, BENCH_LOG_FILE: logFile });
  try {
    const [, port, cookie] = await waitForLine(child, /^READY (\d+)(?: (.+))?$/, 15_000);
    const url = `http://127.0.0.1:${port}${path}`;
    const headers: Record<string, string> = authenticated && cookie !== undefined ? { cookie } : {};
    await checkAnswers(url, headers, expectedStatus, authenticated);
    const result = await measureLoad(url, headers, expectedStatus, settings, () => cpuSecondsOf(child.pid), child.pid);
    const instructions =
      result.serverInstructionsPerRequest === undefined
        ? ''
        : `, ${Math.round(result.serverInstructionsPerRequest / 1000)}k instructions/request`;
    process.stdout.write(
      ` ${result.requestsPerSecond} req/s${result.serverCpuMicrosPerRequest === undefined ? '' : `, server ${Math.round((result.serverCpu ?? 0) * 100)}% of a core, ${result.serverCpuMicrosPerRequest} µs CPU/request`}${instructions}\n`,
    );
    await stop(child);
    return {
      key,
      name,
      path,
      expectedStatus,
      result,
      requestLogLines: script.includes('gatehouse') ? countRequestLines(logFile) : undefined,
    };
  } finally {
    await stop(child);
    rmSync(logFile, { force: true });
  }
}

/** Proves what is measured: the expected status with the cookie, and (for a protected row) a refusal without it. */
async function checkAnswers(
  url: string,
  headers: Record<string, string>,
  expectedStatus: number,
  protectedRow: boolean,
): Promise<void> {
  const response = await fetch(url, { headers, redirect: 'manual' });
  const body = await response.text();
  if (response.status !== expectedStatus)
    throw new Error(`${url} answered ${response.status}, expected ${expectedStatus}: ${body.slice(0, 200)}`);
  if (expectedStatus === 200 && !('uptimeSeconds' in (JSON.parse(body) as object)))
    throw new Error(`${url} did not answer the app-info JSON: ${body.slice(0, 200)}`);
  if (expectedStatus === 302 && !(response.headers.get('location') ?? '').startsWith('/Account/Login'))
    throw new Error(`${url} did not redirect to the login page`);
  if (protectedRow) {
    const anonymous = await fetch(url, { redirect: 'manual' });
    await anonymous.arrayBuffer();
    if (anonymous.status !== 401)
      throw new Error(
        `${url} answered ${anonymous.status} without a session, expected 401: the row would not measure authentication`,
      );
  }
}

function countRequestLines(logFile: string): number {
  try {
    return readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"msg":"request"')).length;
  } catch {
    return 0;
  }
}

async function sessionMemory(count: number): Promise<SessionMemory> {
  const child: ChildProcess = spawnNode(
    ['--expose-gc', '--import', 'tsx', 'scripts/bench/session-memory.ts', String(count)],
    { ...productionEnv },
  );
  const [line] = await waitForLine(child, /^\{.*\}$/, 120_000);
  await stop(child);
  return JSON.parse(line) as SessionMemory;
}

/** SAML responses through the whole ACS check, in a process of its own (scripts/bench/saml-validation.ts). */
async function samlValidation(count: number): Promise<SamlValidation> {
  const child: ChildProcess = spawnNode(
    ['--expose-gc', '--import', 'tsx', 'scripts/bench/saml-validation.ts', String(count)],
    {},
  );
  const [line] = await waitForLine(child, /^\{.*\}$/, 300_000);
  await stop(child);
  return JSON.parse(line) as SamlValidation;
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

interface ColdStart {
  runsMs: number[];
  medianMs: number;
  /** The same measurement for a bare Koa + @koa/router server: the machine's share. */
  bareKoaMedianMs: number;
  bareNodeMedianMs: number;
}

interface SamlValidation {
  responses: number;
  perSecond: number;
  msEach: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  rssGrowthMb: number;
}

interface SessionMemory {
  sessions: number;
  bytesPerSession: number;
  recordJsonBytes: number;
}

function report(
  rows: Row[],
  coldStart: ColdStart | undefined,
  memory: SessionMemory | undefined,
  context: { redisReachable: boolean; pinned: boolean },
  saml?: SamlValidation,
): void {
  const references = rows.filter((row) => row.key === 'bare' && row.result).map((row) => row.result!.requestsPerSecond);
  const reference =
    references.length > 0 ? references.reduce((sum, value) => sum + value, 0) / references.length : undefined;
  const ratio = (row: Row | undefined) =>
    row?.result && reference ? Math.round((row.result.requestsPerSecond / reference) * 100) / 100 : undefined;
  const cpu = (result: LoadResult) =>
    result.serverCpuMicrosPerRequest === undefined
      ? 'n/a'
      : `${result.serverCpuMicrosPerRequest} µs (${Math.round((result.serverCpu ?? 0) * 100)}%)`;
  const referenceInstructions = mean(
    rows.filter((row) => row.key === 'bare').map((row) => row.result?.serverInstructionsPerRequest),
  );
  const instructions = (result: LoadResult) =>
    result.serverInstructionsPerRequest === undefined || referenceInstructions === undefined
      ? 'n/a'
      : `${Math.round(result.serverInstructionsPerRequest / 1000)}k (${(result.serverInstructionsPerRequest / referenceInstructions).toFixed(2)}x)`;
  const lines = [
    `| row | req/s | p50 | p99 | vs bare Koa${references.length > 1 ? ' (mean of its runs)' : ''} | server CPU per request (core use) | instructions per request (vs bare Koa) |`,
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) =>
      row.result
        ? `| ${row.name} | ${row.result.requestsPerSecond.toLocaleString('en-US')} | ${row.result.p50Ms} ms | ${row.result.p99Ms} ms | ${ratio(row)?.toFixed(2) ?? 'n/a'}x | ${cpu(row.result)} | ${instructions(row.result)} |`
        : `| ${row.name} | skipped: ${row.skipped} | | | | | |`,
    ),
  ];
  console.log(lines.join('\n'));
  if (coldStart) {
    console.log(
      `\ncold start to a ready /health/ready: median ${coldStart.medianMs} ms (runs: ${coldStart.runsMs.join(', ')} ms)`,
    );
    console.log(
      `  same machine, same core: bare Koa + @koa/router ${coldStart.bareKoaMedianMs} ms, node -e "" ${coldStart.bareNodeMedianMs} ms`,
    );
  }
  if (memory) {
    const overhead = memory.bytesPerSession - memory.recordJsonBytes;
    console.log(
      `memory per idle session at ${memory.sessions.toLocaleString('en-US')} sessions: ${memory.bytesPerSession} bytes (the JSON of its session and sign-in records is ${memory.recordJsonBytes} bytes; keys, entries and map ${overhead} bytes)`,
    );
  }
  if (saml) {
    console.log(
      `SAML responses through the whole ACS check (on the server core, 4 at a time): ${saml.perSecond} per second (${saml.msEach} ms each); resident memory ${saml.rssBeforeMb} MB before ${saml.responses.toLocaleString('en-US')}, ${saml.rssAfterMb} MB after (${saml.rssGrowthMb} MB)`,
    );
  }
  for (const row of rows) if (row.skipped) console.log(`note: ${row.name} skipped: ${row.skipped}`);
  const unsaturated = rows.filter((row) => row.result?.serverCpu !== undefined && row.result.serverCpu < 0.9);
  if (unsaturated.length > 0) {
    console.log(
      `note: the server used under 90% of its core in ${unsaturated.map((row) => `"${row.name}"`).join(', ')}: something else (other work on the machine, or the load generator) limited those rows; compare CPU per request, or run again on a quieter machine`,
    );
  }
  for (const row of rows) {
    if (row.requestLogLines === undefined || !row.result) continue;
    const answered = row.result.requests + row.result.warmupRequests;
    console.log(
      `request log of "${row.name}": ${row.requestLogLines.toLocaleString('en-US')} lines for ${answered.toLocaleString('en-US')} requests counted by autocannon (it does not count those in flight at the end)`,
    );
  }

  const memoryRatio = ratio(rows.find((row) => row.key === 'memory'));
  const redisRatio = ratio(rows.find((row) => row.key === 'redis'));
  const targets = [
    {
      target: 'Gatehouse memory >= 0.8x bare Koa',
      value: memoryRatio,
      met: memoryRatio === undefined ? undefined : memoryRatio >= 0.8,
    },
    {
      target: 'Gatehouse Redis >= 0.5x bare Koa',
      value: redisRatio,
      met: redisRatio === undefined ? undefined : redisRatio >= 0.5,
    },
    {
      target: '<= 1 KB per idle session at 100,000',
      value: memory?.bytesPerSession,
      met: memory === undefined ? undefined : memory.bytesPerSession <= 1024,
    },
    {
      target: 'cold start to ready < 500 ms',
      value: coldStart?.medianMs,
      met: coldStart === undefined ? undefined : coldStart.medianMs < 500,
    },
  ];
  console.log('\ntargets:');
  for (const t of targets)
    console.log(
      `  ${t.met === undefined ? 'n/a ' : t.met ? 'met ' : 'MISS'}  ${t.target} (${t.value ?? 'not measured'})`,
    );

  const file = join(resultsDir, 'bench.json');
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        node: process.version,
        cpu: cpus()[0]?.model.trim(),
        cores: cpus().length,
        pinned: context.pinned,
        redisReachable: context.redisReachable,
        load: settings,
        referenceRequestsPerSecond: reference === undefined ? undefined : Math.round(reference),
        rows: rows.map((row) => ({ ...row, ratioToBareKoa: ratio(row) })),
        coldStart,
        memory,
        saml,
        targets,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`\nwritten to ${file}`);
}

function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function mean(values: ReadonlyArray<number | undefined>): number | undefined {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length === 0 ? undefined : known.reduce((sum, value) => sum + value, 0) / known.length;
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

await main();
