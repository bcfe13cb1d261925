import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { planProject, type ProjectPlan } from '../../scripts/new-project/plan-project.mjs';
import { writeProject } from '../../scripts/new-project/write-project.mjs';

/** This repository: the template. */
export const templateRoot = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
export const generatorScript = join(templateRoot, 'scripts', 'new-project.mjs');

/** A fresh folder under the system's temporary directory. */
export function temporaryFolder(label: string): string {
  return mkdtempSync(join(tmpdir(), `gatehouse-${label}-`));
}

/** Generates a project in-process, exactly as the command line does. */
export function generate(
  target: string,
  options: { authProvider?: string; database?: string; name?: string; template?: string } = {},
): ProjectPlan {
  const outcome = planProject({
    templateRoot: options.template ?? templateRoot,
    target,
    name: options.name,
    authProvider: options.authProvider,
    database: options.database,
  });
  if (outcome.problems) throw new Error(outcome.problems.join('\n'));
  writeProject(outcome.plan);
  return outcome.plan;
}

/**
 * Links the template's installed packages into a generated project: an install takes a
 * minute, and one real `npm ci` (test/new-project) is enough to show the lockfile works.
 */
export function linkTemplateModules(projectDir: string): void {
  const link = join(projectDir, 'node_modules');
  // Once per project: a second test of the same project finds it linked already.
  if (existsSync(link)) return;
  symlinkSync(join(templateRoot, 'node_modules'), link, 'dir');
}

/**
 * Every entry under `dir` (itself included) with its type, size and modification time:
 * two equal snapshots mean nothing was created, changed or removed in between. With
 * `folderTimes: false` a folder whose entries came and went again still compares equal.
 */
export function snapshot(dir: string, options: { folderTimes?: boolean } = {}): string[] {
  const entries: string[] = [];
  const visit = (path: string, relative: string) => {
    const stat = lstatSync(path);
    const time = stat.isDirectory() && options.folderTimes === false ? '' : ` ${stat.mtimeMs}`;
    entries.push(`${relative} ${stat.isDirectory() ? 'dir' : 'file'} ${stat.size}${time}`);
    if (stat.isDirectory()) for (const name of readdirSync(path).sort()) visit(join(path, name), `${relative}/${name}`);
  };
  visit(dir, '.');
  return entries;
}

/**
 * The environment a developer's shell would give a command: this process's, without what
 * an outer npm or a configured Gatehouse put there (npm_* variables would steer a nested
 * npm, ProjectTemplate__* ones the app under test).
 */
export function cleanEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const kept = Object.entries(process.env).filter(
    ([name, value]) =>
      value !== undefined &&
      !/^npm_/i.test(name) &&
      !/^projecttemplate__/i.test(name) &&
      !['INIT_CWD', 'NODE_ENV', 'NODE_OPTIONS', 'PORT', 'HOST'].includes(name),
  ) as Array<[string, string]>;
  return { ...Object.fromEntries(kept), ...extra };
}

export interface Finished {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  output: () => { stdout: string; stderr: string };
  finished: Promise<Finished>;
  /** Ends the command and everything it started (its process group). */
  stop: () => Promise<Finished>;
}

/** Starts a command in its own process group, its output captured. */
export function start(command: string, args: readonly string[], cwd: string, env = cleanEnvironment()): Running {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const finished = new Promise<Finished>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  return {
    child,
    output: () => ({ stdout, stderr }),
    finished,
    stop: async () => {
      signalGroup('SIGTERM');
      const forced = setTimeout(() => signalGroup('SIGKILL'), 10_000);
      const result = await finished;
      clearTimeout(forced);
      signalGroup('SIGKILL'); // anything the command left behind in its group
      return result;
    },
  };
}

/** Runs a command to its end (killing its process group after `timeoutMs`). */
export async function run(
  command: string,
  args: readonly string[],
  cwd: string,
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Finished> {
  const running = start(command, args, cwd, options.env ?? cleanEnvironment());
  const timer = setTimeout(() => void running.stop(), options.timeoutMs ?? 120_000);
  const result = await running.finished;
  clearTimeout(timer);
  return result;
}

/** Resolves once `output` matches `pattern`, or rejects with the output so far. */
export function waitForOutput(running: Running, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const { stdout, stderr } = running.output();
      const match = pattern.exec(stdout);
      if (match) {
        clearInterval(poll);
        resolve(match);
      } else if (running.child.exitCode !== null || Date.now() - started > timeoutMs) {
        clearInterval(poll);
        reject(new Error(`no ${pattern} in the output:\n${stdout}\n${stderr}`));
      }
    }, 50);
  });
}

export function removeFolder(path: string): void {
  rmSync(path, { recursive: true, force: true });
}
