/**
 * The compiled Gatehouse (dist/) with directory sync on, in a process of its own that the
 * directory bench (directory-scale.ts) loads over HTTP and whose memory it reads:
 *
 *   node --expose-gc --import tsx scripts/bench/directory-instance.ts
 *
 * Its settings come from the environment (the database, the administration API, Directory);
 * it runs in the production posture with the memory session store, its log lines made and
 * dropped (as the other memory measurements run it). Prints `{"url":"http://127.0.0.1:<port>"}`
 * once listening, then, at each SIGUSR2, its memory after full collections as one JSON line
 * (`heapUsed` and `external` as process.memoryUsage() says, `rss` as well): what it holds,
 * apart from what the garbage collector has not yet taken back.
 */
import type { AddressInfo } from 'node:net';
import { loadCompiledGatehouse, projectRoot } from './dist-modules.js';
import { settledMemory } from './connection-memory-growth.js';
import { productionEnv } from './rows.js';

if (globalThis.gc === undefined) throw new Error('run with node --expose-gc');

const { createGatehouse } = await loadCompiledGatehouse();
const gatehouse = await createGatehouse({
  rootDir: projectRoot,
  env: { ...process.env, ...productionEnv, ProjectTemplate__Session__Store: 'Memory' },
  logDestination: { write: () => undefined },
});
const server = await gatehouse.listen(0, '127.0.0.1');
const { port } = server.address() as AddressInfo;

process.on('SIGUSR2', () => {
  const { heapUsed, external } = settledMemory();
  process.stdout.write(`${JSON.stringify({ heapUsed, external, rss: process.memoryUsage().rss })}\n`);
});
process.on('SIGTERM', () => {
  void gatehouse.shutdown({ drain: false }).finally(() => process.exit(0));
});
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
