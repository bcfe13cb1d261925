/**
 * Two instances of the compiled bundle on one PostgreSQL catalog, as a deployment runs
 * them: a page of the administration API's list, and how long a change written through
 * one takes to be in force on the other.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { freePort } from '../free-port.js';
import { median } from './cold-start.js';
import { cpuSecondsOf, spawnNode, stop } from './processes.js';
import { productionEnv } from './rows.js';

/** Requests come through the trusted proxy, from a client elsewhere (readiness then answers counts, not names). */
const FROM_ELSEWHERE = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' };
const PAGE_REQUESTS = 50;
const PAGE_WARM_UPS = 5;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

export interface Instance {
  url: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

export interface PageTiming {
  requests: number;
  /** Milliseconds from sending the request to the end of the answer. */
  medianMs: number;
  slowestMs: number;
  /** The instance's CPU per page (all its threads; PostgreSQL's own is not counted); undefined without /proc. */
  serverCpuMs: number | undefined;
}

export interface ChangeDelays {
  /** From sending the write to A to the first answer of B's readiness that no longer counts the connection. */
  seenMs: number[];
  /** A's answer to the write, within the above. */
  writtenMs: number[];
  /** How often B was asked: the median time one of its readiness answers took. */
  pollMs: number;
}

/** `node dist/bundle/main.js` (BENCH_MAIN) on the server core with `env`, once its readiness answers 200. */
export async function startInstance(env: Record<string, string>): Promise<Instance> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnNode(
    [process.env.BENCH_MAIN ?? 'dist/bundle/main.js'],
    {
      ...productionEnv,
      ProjectTemplate__Session__Store: 'Memory',
      ProjectTemplate__Hosting__ShutdownDrainSeconds: '0',
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    'ignore',
  );
  const deadline = Date.now() + 60_000;
  while ((await ask(`${url}/health/ready`, FROM_ELSEWHERE).catch(() => undefined))?.status !== 200) {
    if (child.exitCode !== null) throw new Error('an instance on the catalog exited before it was ready');
    if (Date.now() > deadline) throw new Error('an instance on the catalog was not ready within 60 s');
    await pause(20);
  }
  return { url, pid: child.pid, stop: () => stop(child) };
}

/** Waits until the instance's readiness counts `count` connections and says its catalog's changes flow. */
export async function untilHolding(instance: Instance, count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = readiness(await ask(`${instance.url}/health/ready`, FROM_ELSEWHERE));
    if (ready.catalog === 'up' && ready.connections === count) return;
    if (Date.now() > deadline)
      throw new Error(`the instance holds ${ready.connections} of ${count} connections, its catalog ${ready.catalog}`);
    await pause(100);
  }
}

/** `GET /api/admin/connections?limit=100` (after `cursor`, if given), one request at a time after a few to warm up. */
export async function pageTimes(instance: Instance, apiKey: string, cursor?: string): Promise<PageTiming> {
  const path = `/api/admin/connections?limit=100${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
  const headers = { ...FROM_ELSEWHERE, authorization: `Bearer ${apiKey}` };
  const page = async () => {
    const started = performance.now();
    const answer = await ask(`${instance.url}${path}`, headers);
    const ms = performance.now() - started;
    const body = JSON.parse(answer.body) as { connections?: unknown[]; next?: string };
    if (answer.status !== 200 || body.connections?.length !== 100 || body.next === undefined)
      throw new Error(`a page of the list answered ${answer.status} with ${body.connections?.length} connections`);
    return ms;
  };
  for (let run = 0; run < PAGE_WARM_UPS; run++) await page();
  const cpuBefore = cpuSecondsOf(instance.pid);
  const times: number[] = [];
  for (let run = 0; run < PAGE_REQUESTS; run++) times.push(await page());
  const cpuAfter = cpuSecondsOf(instance.pid);
  return {
    requests: PAGE_REQUESTS,
    medianMs: round1(median(times)),
    slowestMs: round1(Math.max(...times)),
    serverCpuMs:
      cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : round1(((cpuAfter - cpuBefore) * 1000) / PAGE_REQUESTS),
  };
}

/**
 * Turns each named connection off through A's API (`PATCH {"Enabled": false}`, a write
 * that asks no identity provider) and asks B's readiness, answer after answer, until it
 * counts one connection fewer: B's registry (what its sign-ins use) has let it go.
 */
export async function changeDelays(
  a: Instance,
  b: Instance,
  apiKey: string,
  names: readonly string[],
  count: number,
): Promise<ChangeDelays> {
  const seenMs: number[] = [];
  const writtenMs: number[] = [];
  const polls: number[] = [];
  let holding = count;
  for (const name of names) {
    const started = performance.now();
    const written = ask(
      `${a.url}/api/admin/connections/${name}`,
      {
        ...FROM_ELSEWHERE,
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
      },
      'PATCH',
      JSON.stringify({ Enabled: false }),
    ).then((answer) => {
      if (answer.status !== 200) throw new Error(`turning ${name} off answered ${answer.status}`);
      writtenMs.push(performance.now() - started);
    });
    for (;;) {
      const asked = performance.now();
      const ready = readiness(await ask(`${b.url}/health/ready`, FROM_ELSEWHERE));
      polls.push(performance.now() - asked);
      if (ready.connections === holding - 1) break;
      if (performance.now() - started > 30_000) throw new Error(`the second instance still held ${name} after 30 s`);
    }
    seenMs.push(performance.now() - started);
    await written;
    holding -= 1;
    await pause(500);
  }
  return { seenMs: seenMs.map(round1), writtenMs: writtenMs.map(round1), pollMs: round1(median(polls)) };
}

function readiness(answer: { status: number; body: string }): { catalog: string; connections: number } {
  const body = JSON.parse(answer.body) as {
    checks?: { connectionCatalog?: string };
    connectionCounts?: Record<string, number>;
  };
  const counts = Object.values(body.connectionCounts ?? {});
  return { catalog: body.checks?.connectionCatalog ?? 'none', connections: counts.reduce((sum, n) => sum + n, 0) };
}

/** One request over a kept-alive connection: its status and body. */
function ask(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
