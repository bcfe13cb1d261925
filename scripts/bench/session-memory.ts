/**
 * Memory held per idle signed-in session in the memory store, at a given count.
 *
 *   node --expose-gc --import tsx scripts/bench/session-memory.ts [count]
 *
 * Composes the compiled Gatehouse with the memory store (not listening), writes
 * `count` signed-in records through `gatehouse.sessionStore` under keys derived as
 * the app derives them (sessionStoreKey of a fresh 256-bit token), and reports the
 * growth of V8 heap used plus external memory after full collections, per session.
 * Prints one JSON line.
 */
import { loadCompiledGatehouse, projectRoot } from './dist-modules.js';
import { randomText, signedInRecord } from './signed-in-record.js';

const count = Number(process.argv[2] ?? 100_000);
const gc = globalThis.gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

const { createGatehouse, sessionStoreKey } = await loadCompiledGatehouse();
const gatehouse = await createGatehouse({
  rootDir: projectRoot,
  env: { ...process.env, ProjectTemplate__Session__Store: 'Memory', ProjectTemplate__Session__MaxSessions: String(count), ProjectTemplate__Logging__Level: 'warn' },
  logDestination: { write: () => undefined },
});

function settledMemory(): { heapUsed: number; external: number; rss: number } {
  for (let i = 0; i < 3; i++) gc!();
  const { heapUsed, external, rss } = process.memoryUsage();
  return { heapUsed, external, rss };
}

const ttlMs = gatehouse.settings.Session.IdleTimeout * 1000;
const sample = JSON.stringify(signedInRecord(count, Date.now()));
// Warm every code path once, so compiled code and inline caches are not counted.
await gatehouse.sessionStore.set(sessionStoreKey(randomText(32)), signedInRecord(0, Date.now()), ttlMs);
await gatehouse.sessionStore.destroy('none');
const before = settledMemory();
const now = Date.now();
for (let index = 0; index < count; index++) {
  await gatehouse.sessionStore.set(sessionStoreKey(randomText(32)), signedInRecord(index, now), ttlMs);
}
const after = settledMemory();
// The store must hold every record, or the figure flatters it.
const held = 'size' in gatehouse.sessionStore ? Number(gatehouse.sessionStore.size) : Number.NaN;
if (held !== count) throw new Error(`the store holds ${held} records, expected ${count}`);
const grown = after.heapUsed + after.external - (before.heapUsed + before.external);

process.stdout.write(
  `${JSON.stringify({
    sessions: count,
    recordJsonBytes: Buffer.byteLength(sample),
    bytesPerSession: Math.round(grown / count),
    heapUsedDeltaBytes: after.heapUsed - before.heapUsed,
    externalDeltaBytes: after.external - before.external,
    rssDeltaBytes: after.rss - before.rss,
  })}\n`,
);
