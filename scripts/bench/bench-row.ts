import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureLoad, type LoadResult, type LoadSettings } from './load.js';
import { cpuSecondsOf, spawnNode, stop, waitForLine } from './processes.js';
import type { RowDefinition } from './rows.js';

export interface RowRun {
  result: LoadResult;
  /** Request-log lines the server wrote (Gatehouse rows): proof that the log was really written. */
  requestLogLines?: number;
}

/** Starts the row's server, checks it answers as expected, loads it, stops it. */
export async function benchRow(
  definition: RowDefinition,
  settings: LoadSettings,
  profileDir: string | undefined,
): Promise<RowRun> {
  const logFile = join(tmpdir(), `gatehouse-bench-${process.pid}-${Date.now()}.log`);
  // One folder per row: node names each thread's profile itself (the module loader's hooks thread writes one too).
  const nodeArgs = [
    ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, definition.key)}`] : []),
    '--import',
    'tsx',
    definition.script,
  ];
  const child = spawnNode(nodeArgs, { ...definition.env, BENCH_LOG_FILE: logFile });
  try {
    const [, port, cookie] = await waitForLine(child, /^READY (\d+)(?: (.+))?$/, 15_000);
    const url = `http://127.0.0.1:${port}${definition.path}`;
    const headers = { ...definition.headers, ...(definition.authenticated && cookie ? { cookie } : {}) };
    await checkAnswers(url, headers, definition);
    const result = await measureLoad(url, headers, definition.expectedStatus, settings, () => cpuSecondsOf(child.pid));
    await stop(child);
    return {
      result,
      ...(definition.script.includes('gatehouse') ? { requestLogLines: countRequestLines(logFile) } : {}),
    };
  } finally {
    await stop(child);
    rmSync(logFile, { force: true });
  }
}

/** Proves what is measured: the expected answer with the row's headers, and (for a protected row) a refusal without the cookie. */
async function checkAnswers(url: string, headers: Record<string, string>, row: RowDefinition): Promise<void> {
  const response = await fetch(url, { headers, redirect: 'manual' });
  const body = await response.text();
  if (response.status !== row.expectedStatus)
    throw new Error(`${url} answered ${response.status}, expected ${row.expectedStatus}: ${body.slice(0, 200)}`);
  if (row.bodyContains !== undefined) {
    if (!body.includes(row.bodyContains)) throw new Error(`${url} did not answer "${row.bodyContains}"`);
  } else if (row.expectedStatus === 200 && !('uptimeSeconds' in (JSON.parse(body) as object)))
    throw new Error(`${url} did not answer the app-info JSON: ${body.slice(0, 200)}`);
  if (row.redirectsTo !== undefined && !(response.headers.get('location') ?? '').startsWith(row.redirectsTo))
    throw new Error(`${url} did not redirect to ${row.redirectsTo}`);
  if (row.authenticated) {
    const { cookie: _cookie, ...withoutCookie } = headers;
    const anonymous = await fetch(url, { headers: withoutCookie, redirect: 'manual' });
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
