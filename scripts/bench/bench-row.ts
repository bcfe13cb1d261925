import type { ChildProcess } from 'node:child_process';
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
  /** Loaded together with another row's server on the one server core (benchRowsTogether). */
  sharedCore: boolean;
}

/** Starts the row's server, checks it answers as expected, loads it, stops it. */
export async function benchRow(
  definition: RowDefinition,
  settings: LoadSettings,
  profileDir: string | undefined,
): Promise<RowRun> {
  const [run] = await benchRowsTogether([definition], settings, profileDir);
  return run!;
}

/**
 * Several rows at once: every server started and checked, then all loaded at the same
 * time, each with its share of the connections, on the one server core. Two builds
 * measured this way share whatever else the machine is doing in those seconds, so their
 * ratio holds where rows measured one after the other drift apart (BENCH_SIDE_BY_SIDE).
 */
export async function benchRowsTogether(
  definitions: readonly RowDefinition[],
  settings: LoadSettings,
  profileDir: string | undefined,
): Promise<RowRun[]> {
  const servers: RowServer[] = [];
  try {
    for (const definition of definitions) servers.push(await startRowServer(definition, profileDir));
    const share = { ...settings, connections: Math.max(1, Math.round(settings.connections / servers.length)) };
    const results = await Promise.all(
      servers.map(({ definition, url, headers, child }) =>
        measureLoad(url, headers, definition.expectedStatus, share, () => cpuSecondsOf(child.pid)),
      ),
    );
    // Stopped before the log is read: the server writes what it still holds as it exits.
    await Promise.all(servers.map(({ child }) => stop(child)));
    return servers.map(({ definition, logFile }, index) => ({
      result: results[index]!,
      sharedCore: servers.length > 1,
      ...(definition.script.includes('gatehouse') ? { requestLogLines: countRequestLines(logFile) } : {}),
    }));
  } finally {
    await Promise.all(servers.map(({ child }) => stop(child)));
    for (const { logFile } of servers) rmSync(logFile, { force: true });
  }
}

interface RowServer {
  definition: RowDefinition;
  child: ChildProcess;
  logFile: string;
  url: string;
  headers: Record<string, string>;
}

async function startRowServer(definition: RowDefinition, profileDir: string | undefined): Promise<RowServer> {
  const logFile = join(tmpdir(), `gatehouse-bench-${process.pid}-${definition.key}-${Date.now()}.log`);
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
    return { definition, child, logFile, url, headers };
  } catch (error) {
    await stop(child);
    rmSync(logFile, { force: true });
    throw error;
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
