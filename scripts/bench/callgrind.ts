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
}

/** Requests before counting: enough for every hot function to be optimized by V8 under valgrind. */
const WARMUP_REQUESTS = 30_000;
/**
 * Fresh load-generator connections before counting, twice: the first requests on new
 * sockets deoptimize the socket code once and V8 optimizes it again, which would otherwise
 * land inside the count.
 */
const REWARM_REQUESTS = 5_000;
const COUNTED_REQUESTS = 4_000;
/**
 * valgrind runs the server tens of times slower, and a Redis reply can then take longer
 * than the default 1 s command time-out: the row would count 503s. The longest time-out the
 * settings allow; a command costs the same timer whatever its length.
 */
const UNDER_VALGRIND = { ProjectTemplate__Session__Redis__CommandTimeoutMs: '10000' };

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
): Promise<CallgrindCount> {
  const outFile = join(keepDir ?? tmpdir(), `callgrind-${definition.key}-${process.pid}-${Date.now()}.out`);
  const logFile = join(tmpdir(), `gatehouse-bench-callgrind-${process.pid}-${Date.now()}.log`);
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${outFile}`,
      process.execPath,
      '--single-threaded',
      '--import',
      'tsx',
      definition.script,
    ],
    {
      cwd: projectRoot,
      env: { ...process.env, ...definition.env, ...UNDER_VALGRIND, BENCH_LOG_FILE: logFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // callgrind numbers its dumps: one per counted window.
  const dumps: string[] = [];
  try {
    const [, port, cookie] = await waitForLine(child, /^READY (\d+)(?: (.+))?$/, 120_000);
    const url = `http://127.0.0.1:${port}${definition.path}`;
    const headers = { ...definition.headers, ...(definition.authenticated && cookie ? { cookie } : {}) };
    const load = async (amount: number, phase: string) => {
      // A fixed number of requests: the counted window is the same work for every row.
      const result = await autocannon({ url, headers, connections, amount, timeout: 60 });
      checkStatuses(result, definition.expectedStatus, phase);
      if (result.requests.total !== amount) throw new Error(`${phase}: ${result.requests.total} of ${amount} answered`);
    };
    await load(WARMUP_REQUESTS, 'callgrind warm-up');
    await load(REWARM_REQUESTS, 'callgrind warm-up');
    await load(REWARM_REQUESTS, 'callgrind warm-up');
    control(child.pid, ['--instr=on']);
    // One window after the other, each a dump of its own, until the two fewest agree.
    const windows: number[] = [];
    let verdict = judgeWindows(windows);
    do {
      await load(COUNTED_REQUESTS, 'callgrind count');
      control(child.pid, ['--dump']);
      const dump = `${outFile}.${dumps.length + 1}`;
      dumps.push(dump);
      const totals = /^totals: (\d+)/m.exec(readFileSync(dump, 'utf8'));
      if (!totals) throw new Error(`no totals in ${dump}`);
      windows.push(Math.round(Number(totals[1]) / COUNTED_REQUESTS));
      verdict = judgeWindows(windows);
    } while (verdict.countAnother);
    return {
      instructionsPerRequest: verdict.fewest,
      requests: COUNTED_REQUESTS,
      windows,
      agreed: verdict.agreed,
      ...(keepDir ? { file: dumps[windows.indexOf(verdict.fewest)] } : {}),
    };
  } finally {
    await stop(child, 30_000);
    rmSync(outFile, { force: true });
    rmSync(logFile, { force: true });
    if (!keepDir) for (const file of dumps) if (existsSync(file)) rmSync(file, { force: true });
  }
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
