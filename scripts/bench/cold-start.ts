import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { freePort } from '../free-port.js';
import { projectRoot } from './dist-modules.js';
import { cpuSecondsOf, spawnNode, stop } from './processes.js';
import { productionEnv } from './rows.js';

/** One GET without keep-alive; resolves with the status, or 0 when the connection fails. */
function statusOf(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

/**
 * One start: milliseconds from the spawn to the first 200, and the CPU the process had used
 * by then (all its threads, from /proc, in clock ticks of 10 ms; undefined without /proc).
 * The CPU tells starts apart where the time does not, on a machine whose neighbours keep
 * the server core busy: a start waiting for the core takes longer but uses no more CPU.
 */
export interface Start {
  ms: number;
  cpuMs: number | undefined;
}

/** Another Node than this process's (`node`, its executable), and environment variables for it. */
export interface StartedWith {
  node?: string;
  env?: Record<string, string>;
}

/**
 * One start of `node dist/bundle/main.js` (what npm start runs; BENCH_MAIN names another
 * entry point), from the spawn to the first 200 from /health/ready: process start, module
 * loading, composition, listen, the first answer. In the production posture with the
 * memory store, so that no connection to another server is part of the start.
 */
export function coldStartOnce(nodeFlags: readonly string[] = [], startedWith: StartedWith = {}): Promise<Start> {
  return spawnToReady(
    [...nodeFlags, process.env.BENCH_MAIN ?? 'dist/bundle/main.js'],
    {
      ...productionEnv,
      ProjectTemplate__Session__Store: 'Memory',
      ProjectTemplate__Hosting__ShutdownDrainSeconds: '0',
      ...startedWith.env,
    },
    startedWith.node,
  );
}

/** A bare Koa + @koa/router server: what any Koa app pays here. */
const BARE_KOA = `
import Koa from 'koa';
import Router from '@koa/router';
const app = new Koa();
const router = new Router();
router.get('/health/ready', (ctx) => { ctx.body = { status: 'ready' }; });
app.use(router.routes());
app.listen(Number(process.env.PORT), process.env.HOST);
process.on('SIGTERM', () => process.exit(0));
`;

/**
 * The bare Koa server bundled as Gatehouse is for `npm start` (esbuild, one ES module, its
 * packages inside, a linked source map), so that the two cold starts compare applications,
 * not ways of loading them.
 */
export async function bundleBareKoa(outfile: string): Promise<string> {
  await build({
    stdin: { contents: BARE_KOA, resolveDir: projectRoot, loader: 'js', sourcefile: 'bare-koa-server.js' },
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  return outfile;
}

/**
 * The bare Koa server as a Koa app is usually started: its source in a file of its own in
 * `dir` (inside the project, so that its imports resolve from node_modules), not bundled.
 */
export function writeUnbundledBareKoa(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'server.mjs');
  writeFileSync(file, BARE_KOA);
  return file;
}

/**
 * From spawn to the first 200 from /health/ready of a node process told to listen on HOST
 * and PORT (a port free a moment before). Asked every millisecond from the
 * spawn on, so that nothing the process prints (or holds in a log buffer) is measured.
 */
async function spawnToReady(args: readonly string[], env: Record<string, string>, node?: string): Promise<Start> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/health/ready`;
  const started = performance.now();
  const child = spawnNode(args, { ...env, PORT: String(port), HOST: '127.0.0.1' }, 'ignore', node);
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    for (;;) {
      if ((await statusOf(url)) === 200) {
        const ms = performance.now() - started;
        const cpuSeconds = cpuSecondsOf(child.pid);
        return { ms, cpuMs: cpuSeconds === undefined ? undefined : cpuSeconds * 1000 };
      }
      if (exited) throw new Error(`${args.join(' ')} exited before /health/ready answered 200`);
      if (performance.now() - started > 10_000) throw new Error('/health/ready did not answer 200 within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  } finally {
    await stop(child);
  }
}

export function bareKoaColdStartOnce(
  bundle: string,
  nodeFlags: readonly string[] = [],
  startedWith: StartedWith = {},
): Promise<Start> {
  return spawnToReady([...nodeFlags, bundle], startedWith.env ?? {}, startedWith.node);
}

/** `node -e ""` on the same core: the floor no application start can go below. */
export async function bareNodeStartMs(node?: string): Promise<number> {
  const started = performance.now();
  const child = spawnNode(['-e', ''], {}, 'ignore', node);
  await new Promise((resolve) => child.once('exit', resolve));
  return performance.now() - started;
}

/** The mean, or undefined when a value is missing (no /proc). */
export function meanOf(values: ReadonlyArray<number | undefined>): number | undefined {
  if (values.length === 0 || values.some((value) => value === undefined)) return undefined;
  return (values as number[]).reduce((sum, value) => sum + value, 0) / values.length;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
