import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { COOKIE_POSTURE } from '../../scripts/cookie-posture.js';
import { STAND_IN_PROVIDER_KEYS } from './stand-in-provider-keys.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Starts the real entry point (src/bootstrap/main.ts through tsx) as its own process, with
 * Gatehouse's built-in authentication posture (COOKIE_POSTURE) whatever this project's
 * config/appsettings.json chose, then `env`.
 */
export function spawnMain(env: Record<string, string>): SpawnedProcess {
  return spawnEntryPoint(['--import', 'tsx', 'src/bootstrap/main.ts'], env);
}

/** The same, with the authentication posture this project is configured with (an enabled provider gets stand-in keys). */
export function spawnMainAsConfigured(env: Record<string, string>): SpawnedProcess {
  return spawnEntryPoint(['--import', 'tsx', 'src/bootstrap/main.ts'], env, { asConfigured: true });
}

export interface SpawnedProcess {
  child: ChildProcess;
  output: () => { stdout: string; stderr: string };
}

/**
 * `node <args>` in the project root with a minimal environment (test settings, a free
 * port, no drain delay, the built-in authentication posture, or with `asConfigured` the
 * project's own with stand-in provider keys) plus `env`, its output captured.
 */
export function spawnEntryPoint(
  args: readonly string[],
  env: Record<string, string>,
  options: { asConfigured?: boolean } = {},
): SpawnedProcess {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      ProjectTemplate__Hosting__ShutdownDrainSeconds: '0',
      ...(options.asConfigured ? STAND_IN_PROVIDER_KEYS : COOKIE_POSTURE),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, output: () => ({ stdout, stderr }) };
}

/** The exit code once the process has ended (null when a signal ended it), at once if it already has. */
export function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

/** Resolves with the URL once the process logs that it listens. */
export async function listeningUrl(
  output: () => { stdout: string; stderr?: string },
  child: ChildProcess,
  // A start compiles the app through tsx: seconds on a quiet machine, more on a busy one (it resolves as soon as the line arrives).
  timeoutMs = 25_000,
): Promise<string> {
  const match = await printed(output, child, /Gatehouse listening on (http:\/\/[^"\s]+)/, timeoutMs).catch(() => {
    throw new Error(`the process did not start listening${output().stderr ? `:\n${output().stderr}` : ''}`);
  });
  return match[1] ?? '';
}

/**
 * Resolves with the match once the process has written `pattern` to stdout: as soon as
 * the line arrives, however slow the machine. Rejects when the process exits first or
 * `timeoutMs` passes, naming the pattern.
 */
export function printed(
  output: () => { stdout: string },
  child: ChildProcess,
  pattern: RegExp,
  timeoutMs = 10_000,
): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    // spawnEntryPoint's 'data' listener came first: `output()` already holds each chunk here.
    const check = () => {
      const match = pattern.exec(output().stdout);
      if (match) finish(() => resolve(match));
      else if (ended()) finish(() => reject(new Error(`the process ended without printing ${pattern}`)));
    };
    // 'close' comes after the exit and the last of stdout; a process that ended before the call has no event left.
    const ended = () =>
      (child.exitCode !== null || child.signalCode !== null) &&
      (child.stdout === null || child.stdout.readableEnded || child.stdout.destroyed);
    const onClose = () => {
      const match = pattern.exec(output().stdout);
      finish(() => (match ? resolve(match) : reject(new Error(`the process ended without printing ${pattern}`))));
    };
    const timer = setTimeout(
      () => finish(() => reject(new Error(`${pattern} not printed within ${timeoutMs} ms`))),
      timeoutMs,
    );
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.off('close', onClose);
      settle();
    };
    child.stdout?.on('data', check);
    child.once('close', onClose);
    check();
  });
}
