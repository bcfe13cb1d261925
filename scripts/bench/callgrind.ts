import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { projectRoot } from './dist-modules.js';
import { checkStatuses } from './load.js';
import { stop, waitForLine } from './processes.js';
import type { RowDefinition } from './rows.js';

/** Whether valgrind's callgrind and its control program are installed (Debian's valgrind package). */
export const callgrindAvailable =
  spawnSync('valgrind', ['--version'], { stdio: 'ignore' }).status === 0 &&
  spawnSync('callgrind_control', ['--version'], { stdio: 'ignore' }).status === 0;

export interface CallgrindCount {
  /** The fewest of the windows counted. */
  instructionsPerRequest: number;
  /** Requests in each window. */
  requests: number;
  /** Each window's count, in the order counted. */
  windows: number[];
  /** Whether the two fewest windows agreed (judgeWindows); false: read with care. */
  agreed: boolean;
  /** The callgrind dump, kept for `callgrind_annotate` when asked for. */
  file?: string;
  /** Where the count's wall time went, in seconds: the gate's budget is CI time. */
  seconds: { start: number; warmUp: number; windows: number; annotate: number };
}

/** How many requests a count makes before and in each window. */
export interface CountPlan {
  /** Requests before counting: enough for every hot function to be optimized by V8 under valgrind. */
  warmUp: number;
  /**
   * Fresh load-generator connections before counting, this many requests twice: the first
   * requests on new sockets deoptimize the socket code once and V8 optimizes it again, which
   * would otherwise land inside the count.
   */
  rewarm: number;
  /** Requests in each counted window. */
  window: number;
  /** Windows at most (MAX_WINDOWS unless said): a row whose windows only rise gains nothing from more. */
  maxWindows?: number;
  /** V8 flags for this count beside UNDER_VALGRIND_NODE_FLAGS (the gate's fixed young generation). */
  nodeFlags?: readonly string[];
}

/** `npm run bench`'s plan: generous, for a row counted once by hand. */
export const BENCH_PLAN: CountPlan = { warmUp: 30_000, rewarm: 5_000, window: 4_000 };

/**
 * valgrind runs the server tens of times slower, and a Redis reply can then take longer
 * than the default 1 s command time-out: the row would count 503s. The longest time-out the
 * settings allow; a command costs the same timer whatever its length.
 */
const UNDER_VALGRIND = {
  ProjectTemplate__Session__Redis__CommandTimeoutMs: '10000',
  BENCH_KEEP_ALIVE_MS: '120000',
  /**
   * The telemetry rows push metrics every second. Under valgrind a second holds some fifty
   * times fewer requests: every few dozen requests would pay an export (at native speed,
   * every several thousand), and the count read high by a third. The SDK's default of a
   * minute is, under valgrind, about what a second is at native speed.
   */
  OTEL_METRIC_EXPORT_INTERVAL: '60000',
  /**
   * Spans leave in batches of 512 or every 5 s, whichever comes first. At native speed the
   * batch fills first; under valgrind, on a busy machine, the timer did, each export then
   * carrying a few dozen spans, and the 100% row read 376,000 instructions a request alone
   * and 553,000 beside three other counts. Full batches only: the count no longer depends
   * on how fast valgrind runs.
   */
  OTEL_BSP_SCHEDULE_DELAY: '600000',
  /**
   * A session's `lastSeenAt` is rewritten at most once a minute of wall-clock time: at
   * native speed once in some hundreds of thousands of requests, under valgrind once in a
   * few thousand, and more often the busier the machine. Each rewrite saves the session,
   * sends its cookie again and deoptimizes the code that never did (koa-session's getter,
   * `Cookies.get`, Node's `_storeHeader`); re-optimizing it spread over the next windows.
   * Beside other jobs the memory row's windows fell from 259,000 to 241,000 over four;
   * with the session last seen an hour ahead (so not rewritten within the count), its
   * first two agreed (246,818 and 246,432), as they do on a quiet machine.
   */
  BENCH_SESSION_SEEN_AHEAD_MS: '3600000',
  /** Log lines in full 4 KB blocks only, as at native speed under load (gatehouse-server.ts). */
  BENCH_LOG_BLOCKS_ONLY: '1',
};

/**
 * V8's memory reducer collects the whole heap when the allocation rate, per second of
 * wall-clock time, looks low. Under valgrind the server runs some fifty times slower, so it
 * looked low all the time: a full mark-compact landed in about every other counted window
 * (60,000-90,000 instructions per request more in that window), where at native speed under
 * load the reducer never runs. Off, the count is the request's own work.
 */
const UNDER_VALGRIND_NODE_FLAGS = (process.env.BENCH_CALLGRIND_NODE_FLAGS ?? '--no-memory-reducer')
  .split(' ')
  .filter(Boolean);

/**
 * The young generation fixed at 16 MB a semi-space, the size a loaded server keeps. V8
 * sizes it by allocation per second of wall-clock time too, and shrank it for a server
 * slowed fifty times (30.9 to 15.9 MB at the first counted window, 103 minor collections in
 * it instead of 8), more so the busier the machine: the memory row's windows read high and
 * fell over five windows (273,000 to 248,000 beside other jobs). Fixed, its first two
 * windows agreed (246,761 and 246,318) and a whole gate took 1 min 54 s instead of 2 min 4 s.
 * The gate's rows only: the traced telemetry rows read a quarter higher with it and their
 * windows spread by a quarter (docs/performance.md, Telemetry).
 */
export const FIXED_YOUNG_GENERATION = ['--min-semi-space-size=16', '--max-semi-space-size=16'];

/**
 * What loads a counted server: `prepare(amount)` readies that many requests (uncounted:
 * whatever must be done before, such as a challenge for each SAML response) and resolves
 * to what sends them, which runs inside the count.
 */
export interface CountedLoad {
  prepare(amount: number, phase: string): Promise<() => Promise<void>>;
}

const COUNTING = 'callgrind count';

/**
 * A window whose requests were all answered as expected but whose load generator had to
 * reconnect (a valgrind-slowed server dropping a connection): its count holds the
 * reconnections, so it is counted again rather than kept or failed.
 */
export class SpoiledWindow extends Error {}

/** An HTTP row's load: the same request, `amount` times, over `connections` connections (autocannon). */
export function rowLoad(definition: RowDefinition, connections: number, port: string, cookie: string | undefined) {
  const url = `http://127.0.0.1:${port}${definition.path}`;
  const headers = { ...definition.headers, ...(definition.authenticated && cookie ? { cookie } : {}) };
  return {
    prepare: async (amount: number, phase: string) => async () => {
      // A fixed number of requests: the counted window is the same work for every row.
      const result = await autocannon({ url, headers, connections, amount, timeout: 60 });
      const spoiled = result.errors > 0 && result.timeouts === 0 && result.requests.total === amount;
      if (spoiled && phase === COUNTING) throw new SpoiledWindow(`${result.errors} connection errors`);
      checkStatuses(result, definition.expectedStatus, phase);
      if (result.requests.total !== amount) throw new Error(`${phase}: ${result.requests.total} of ${amount} answered`);
    },
  } satisfies CountedLoad;
}

/**
 * Instructions the row's server executes per request, counted by callgrind: unlike
 * requests per second or CPU time, the count hardly moves with what else the machine is
 * doing (the same build usually counts the same within about 1%, where requests per second move
 * by tens of percent between minutes on a shared machine), so a ratio of counts shows what the
 * code itself costs. The server runs with `--single-threaded`, so that V8's compiler and
 * collector work on the main thread, in the order the requests cause it, and only the
 * requests in the counted windows after warm-up count (as many windows as it takes for
 * the two fewest to agree: judgeWindows). It is not time: valgrind's virtual
 * CPU takes other paths through some native code than the machine does, and cache misses
 * count for nothing.
 */
export async function countInstructionsPerRequest(
  definition: RowDefinition,
  connections: number,
  keepDir?: string,
  plan: CountPlan = BENCH_PLAN,
): Promise<CallgrindCount> {
  return countInstructions(
    { key: definition.key, script: definition.script, env: definition.env },
    (port, cookie) => rowLoad(definition, connections, port, cookie),
    plan,
    keepDir,
  );
}

/**
 * The count itself, for any server script that prints `READY <port> [cookie]` and any load
 * (countInstructionsPerRequest for the bench's rows; the performance gate's SAML row).
 */
export async function countInstructions(
  server: { key: string; script: string; env: Record<string, string> },
  loadFor: (port: string, cookie: string | undefined) => CountedLoad,
  plan: CountPlan,
  keepDir?: string,
): Promise<CallgrindCount> {
  const outFile = join(keepDir ?? tmpdir(), `callgrind-${server.key}-${process.pid}-${Date.now()}.out`);
  const logFile = join(tmpdir(), `gatehouse-bench-callgrind-${process.pid}-${Date.now()}.log`);
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${outFile}`,
      process.execPath,
      '--single-threaded',
      ...UNDER_VALGRIND_NODE_FLAGS,
      ...(plan.nodeFlags ?? []),
      // A compiled script (compiled-server.ts) starts without tsx's loader.
      ...(server.script.endsWith('.ts') ? ['--import', 'tsx'] : []),
      server.script,
    ],
    {
      cwd: projectRoot,
      env: { ...process.env, ...server.env, ...UNDER_VALGRIND, BENCH_LOG_FILE: logFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // callgrind numbers its dumps: one per counted window.
  const dumps: string[] = [];
  const clock = phaseClock();
  try {
    const [, port = '', cookie] = await waitForLine(child, /^READY (\d+)(?: (.+))?$/, START_TIMEOUT_MS);
    const start = clock.lap();
    const load = loadFor(port, cookie);
    const run = async (amount: number, phase: string) => (await load.prepare(amount, phase))();
    await run(plan.warmUp, 'callgrind warm-up');
    await run(plan.rewarm, 'callgrind warm-up');
    await run(plan.rewarm, 'callgrind warm-up');
    const warmUp = clock.lap();
    let annotate = 0;
    // One window after the other, each a dump of its own, until the two fewest agree.
    const windows: number[] = [];
    let verdict = judgeWindows(windows, plan.maxWindows);
    const windowDumps: string[] = [];
    let spoiled = 0;
    do {
      const send = await load.prepare(plan.window, COUNTING);
      control(child.pid, ['--instr=on']);
      const sent = await send().then(
        () => undefined,
        (error: unknown) => error,
      );
      control(child.pid, ['--dump']);
      control(child.pid, ['--instr=off']);
      const dump = `${outFile}.${dumps.length + 1}`;
      dumps.push(dump);
      if (sent instanceof SpoiledWindow && ++spoiled <= MAX_SPOILED) continue;
      if (sent !== undefined) throw sent;
      windowDumps.push(dump);
      const totals = /^totals: (\d+)/m.exec(readFileSync(dump, 'utf8'));
      if (!totals) throw new Error(`no totals in ${dump}`);
      const annotating = performance.now();
      const compiler = optimizingCompilerInstructions(dump);
      annotate += (performance.now() - annotating) / 1000;
      const perRequest = requestInstructions(Number(totals[1]), compiler, plan.window);
      if (perRequest === undefined) {
        // callgrind_annotate once printed a wrapped 64-bit inclusive count for the compiler
        // (about 9.2e18): the gate then compared a negative count and passed. Such a window
        // is counted again, never kept.
        if (++spoiled <= MAX_SPOILED) continue;
        throw new Error(`${dump}: the compiler's count is not part of the window's total`);
      }
      windows.push(perRequest);
      verdict = judgeWindows(windows, plan.maxWindows);
    } while (verdict.countAnother);
    return {
      instructionsPerRequest: verdict.fewest,
      requests: plan.window,
      windows,
      agreed: verdict.agreed,
      ...(keepDir ? { file: windowDumps[windows.indexOf(verdict.fewest)] } : {}),
      seconds: { start, warmUp, windows: clock.lap() - annotate, annotate },
    };
  } finally {
    await stop(child, 30_000);
    rmSync(outFile, { force: true });
    rmSync(logFile, { force: true });
    if (!keepDir) for (const file of dumps) if (existsSync(file)) rmSync(file, { force: true });
  }
}

/**
 * What V8's optimizing compiler (TurboFan) executed in a window: its jobs' inclusive count,
 * from callgrind_annotate. With `--single-threaded` the compiler runs on the main thread,
 * when and as often as V8 decides (a window in which it compiled read 10-40% high); at
 * native speed it runs on a thread of its own, beside the requests. So a count is of the
 * requests' own work, the optimized code they run included, and not of compiling it.
 */
export function optimizingCompilerInstructions(dump: string): number {
  const annotated = spawnSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', dump], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (annotated.status !== 0) throw new Error(`callgrind_annotate ${dump}: ${annotated.stderr}`);
  return compilerJobsIn(annotated.stdout);
}

/**
 * A window's instructions per request without the compiler's: undefined when the
 * compiler's count cannot be part of the window's total (negative, or not below it).
 */
export function requestInstructions(total: number, compiler: number, requests: number): number | undefined {
  if (!Number.isSafeInteger(total) || !Number.isSafeInteger(compiler)) return undefined;
  if (compiler < 0 || compiler >= total || requests <= 0) return undefined;
  return Math.round((total - compiler) / requests);
}

/** The inclusive counts of the compiler's entry points (a job, or on-stack replacement) in callgrind_annotate's output. */
export function compilerJobsIn(annotated: string): number {
  let total = 0;
  for (const line of annotated.split('\n')) {
    const match = /^\s*([\d,]+) \([^)]*\)\s+\S*?v8::internal::Compiler::(CompileOptimized|CompileOptimizedOSR)\(/.exec(
      line,
    );
    if (match) total += Number(match[1]!.replace(/,/g, ''));
  }
  return total;
}

/** Seconds since the last lap (or since made). */
function phaseClock(): { lap(): number } {
  let last = performance.now();
  return {
    lap() {
      const now = performance.now();
      const seconds = (now - last) / 1000;
      last = now;
      return seconds;
    },
  };
}

function control(pid: number | undefined, args: string[]): void {
  const answer = spawnSync('callgrind_control', [...args, String(pid)], { encoding: 'utf8' });
  if (answer.status !== 0) throw new Error(`callgrind_control ${args.join(' ')}: ${answer.stderr || answer.stdout}`);
}

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

/** A start under valgrind takes tens of seconds, minutes on a machine other jobs keep busy. */
const START_TIMEOUT_MS = 600_000;

/** Windows counted again for a reconnection before the count fails. */
const MAX_SPOILED = 3;

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
export function judgeWindows(counts: readonly number[], maxWindows: number = MAX_WINDOWS): WindowsVerdict {
  const [fewest = Number.POSITIVE_INFINITY, second = Number.POSITIVE_INFINITY] = [...counts].sort((a, b) => a - b);
  const agreed = counts.length >= MIN_WINDOWS && second <= fewest * (1 + WINDOWS_AGREE_WITHIN);
  return { countAnother: !agreed && counts.length < maxWindows, fewest, agreed };
}
