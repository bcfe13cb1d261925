import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import { projectRoot } from './dist-modules.js';

/** Server on core 0, load generator on core 1: only with taskset and two cores or more. */
export const pinning =
  spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0 && availableParallelism() >= 2;

export const SERVER_CORE = '0';
export const LOAD_CORE = '1';

/** Moves every thread of this process (the load generator) to the load core. */
export function pinSelfToLoadCore(): boolean {
  if (!pinning) return false;
  return spawnSync('taskset', ['-a', '-cp', LOAD_CORE, String(process.pid)], { stdio: 'ignore' }).status === 0;
}

/** `node <args>` (this process's Node unless `node` names another), on the server core when pinning is possible, in the project root. */
export function spawnNode(
  args: readonly string[],
  env: Record<string, string | undefined>,
  stdio: 'pipe' | 'ignore' = 'pipe',
  node: string = process.execPath,
): ChildProcess {
  const command = pinning ? 'taskset' : node;
  const commandArgs = pinning ? ['-c', SERVER_CORE, node, ...args] : [...args];
  return spawn(command, commandArgs, {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', stdio, stdio],
  });
}

/** Resolves with the first stdout line matching `pattern`; rejects if the child exits or times out first. */
export function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    if (!child.stdout) return reject(new Error('child stdout is not piped'));
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => fail(new Error(`no line matching ${pattern} within ${timeoutMs} ms`)), timeoutMs);
    const onExit = (code: number | null) =>
      fail(new Error(`child exited (${code}) before printing ${pattern}\n${stderr}`));
    function fail(error: Error) {
      clearTimeout(timer);
      lines.close();
      child.off('exit', onExit);
      reject(error);
    }
    child.once('exit', onExit);
    lines.on('line', (line) => {
      const match = pattern.exec(line);
      if (!match) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      lines.close();
      // Keep draining the pipe so that a chatty child never blocks on a full one.
      child.stdout?.resume();
      resolve(match);
    });
  });
}

/** Runs a measuring script under tsx in a process of its own (with a collectable heap) and reads its one JSON line. */
export async function jsonLineOf<T>(args: string[], env: Record<string, string>, timeoutMs: number): Promise<T> {
  const child: ChildProcess = spawnNode(['--expose-gc', '--import', 'tsx', ...args], env);
  const [line] = await waitForLine(child, /^\{.*\}$/, timeoutMs);
  await stop(child);
  return JSON.parse(line) as T;
}

/** SIGTERM, then SIGKILL if it is still running after `graceMs`. */
export function stop(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export const clockTicksPerSecond =
  Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/**
 * CPU time (user + system, seconds) a process has used so far, from /proc; undefined
 * where there is no /proc. Shows whether a server was saturated and what one request
 * costs it, which stays meaningful when other work shares the machine.
 */
export function cpuSecondsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond;
  } catch {
    return undefined;
  }
}
