/**
 * Memory held per idle signed-in session in the memory store, at a given count.
 *
 *   node --expose-gc --import tsx scripts/bench/session-memory.ts [count]
 *
 * Composes the compiled Gatehouse with the memory store (not listening), writes
 * `count` signed-in sessions through `gatehouse.stores.sessions`, each as the app leaves it:
 * a sign-in record and a session record under a key derived as the app derives it
 * (sessionStoreKey of a fresh 256-bit token), and reports the
 * growth of V8 heap used plus external memory after full collections, per session.
 * Prints one JSON line.
 */
import { loadCompiledGatehouse, projectRoot } from './dist-modules.js';
import { randomText, signedInRecords } from './signed-in-record.js';

const count = Number(process.argv[2] ?? 100_000);
const gc = globalThis.gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

const { createGatehouse, sessionStoreKey } = await loadCompiledGatehouse();
const gatehouse = await createGatehouse({
  rootDir: projectRoot,
  env: {
    ...process.env,
    ProjectTemplate__Session__Store: 'Memory',
    ProjectTemplate__Session__MaxSessions: String(2 * count + 2),
    ProjectTemplate__Logging__Level: 'warn',
  },
  logDestination: { write: () => undefined },
});

function settledMemory(): { heapUsed: number; external: number; rss: number } {
  for (let i = 0; i < 3; i++) gc!();
  const { heapUsed, external, rss } = process.memoryUsage();
  return { heapUsed, external, rss };
}

const ttlMs = gatehouse.settings.Session.IdleTimeout * 1000;
async function writeSession(index: number, now: number): Promise<void> {
  const records = signedInRecords(index, now);
  await gatehouse.stores.sessions.create(records.signInKey, records.signIn, ttlMs);
  await gatehouse.stores.sessions.create(sessionStoreKey(randomText(32)), records.session, ttlMs);
}

const sample = signedInRecords(count, Date.now());
// Warm every code path once, so compiled code and inline caches are not counted.
await writeSession(0, Date.now());
await gatehouse.stores.sessions.destroy('none');
const before = settledMemory();
const now = Date.now();
for (let index = 0; index < count; index++) await writeSession(index, now);
const after = settledMemory();
// The store must hold every record, or the figure flatters it.
const held = 'size' in gatehouse.stores.sessions ? Number(gatehouse.stores.sessions.size) : Number.NaN;
if (held !== 2 * count + 2) throw new Error(`the store holds ${held} records, expected ${2 * count + 2}`);
const grown = after.heapUsed + after.external - (before.heapUsed + before.external);

process.stdout.write(
  `${JSON.stringify({
    sessions: count,
    recordJsonBytes:
      Buffer.byteLength(JSON.stringify(sample.session)) + Buffer.byteLength(JSON.stringify(sample.signIn)),
    bytesPerSession: Math.round(grown / count),
    heapUsedDeltaBytes: after.heapUsed - before.heapUsed,
    externalDeltaBytes: after.external - before.external,
    rssDeltaBytes: after.rss - before.rss,
  })}\n`,
);
