import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A line a redis-server prints once it serves: a data node's, or a sentinel's first monitor. */
const READY = /Ready to accept connections|\+monitor master/;
const START_TIMEOUT_MS = 15_000;

/** Servers still running, killed if this process exits without stopping them (a failed or interrupted run). */
const live = new Set<ChildProcess>();
let exitListener = false;
function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (exitListener) return;
  exitListener = true;
  process.once('exit', () => {
    for (const orphan of live) orphan.kill('SIGKILL');
  });
}

/**
 * One `redis-server` (a data node or a sentinel) run as a child of this process, from a
 * config file of its own in a temporary folder, on the port its config names: killed,
 * frozen and restarted by its process id, as an operator's failure would hit it.
 */
export class RedisProcess {
  private child: ChildProcess | undefined;
  private log = '';

  private constructor(
    readonly name: string,
    readonly port: number,
    private readonly configFile: string,
    private readonly sentinel: boolean,
  ) {}

  /** Writes `config` (one directive a line) to `<dir>/<name>.conf` and starts the server. */
  static async start(options: {
    name: string;
    dir: string;
    port: number;
    config: string[];
    sentinel?: boolean;
  }): Promise<RedisProcess> {
    const configFile = join(options.dir, `${options.name}.conf`);
    writeFileSync(configFile, `${options.config.join('\n')}\n`, { mode: 0o600 });
    const server = new RedisProcess(options.name, options.port, configFile, options.sentinel === true);
    await server.start();
    return server;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Starts the server again from its config file (a sentinel's, which it rewrites, included),
   * with `extra` directives after it (`['--replicaof', host, port]`).
   */
  async start(extra: string[] = []): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    this.log = '';
    const child = spawn('redis-server', [this.configFile, ...(this.sentinel ? ['--sentinel'] : []), ...extra], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    track(child);
    let onReady: (() => void) | undefined;
    const collect = (chunk: Buffer) => {
      this.log = (this.log + chunk.toString()).slice(-20_000);
      if (onReady && READY.test(this.log)) onReady();
    };
    // Always read, so that a chatty server never blocks on a full pipe.
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail(`did not start within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
      const onExit = (code: number | null) => fail(`exited (${code}) while starting`);
      const done = () => {
        clearTimeout(timer);
        child.off('exit', onExit);
        onReady = undefined;
      };
      const fail = (reason: string) => {
        done();
        child.kill('SIGKILL');
        reject(new Error(`redis-server ${this.name} ${reason}:\n${this.log}`));
      };
      onReady = () => {
        done();
        resolve();
      };
      child.once('exit', onExit);
      child.once('error', (error) => reject(error));
      if (READY.test(this.log)) onReady();
    });
  }

  /** What the server printed since it last started (the end of it), for a failing test's report. */
  output(): string {
    return this.log;
  }

  /** SIGKILL: the server is gone at once, nothing flushed, its connections reset. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** SIGSTOP: the server stops answering while its connections stay open. */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  thaw(): void {
    this.child?.kill('SIGCONT');
  }
}
