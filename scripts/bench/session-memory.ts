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
/** Writes one signed-in session's two records; the keys they are under. */
async function writeSession(index: number, now: number): Promise<string[]> {
  const records = signedInRecords(index, now);
  const keys = [records.signInKey, sessionStoreKey(randomText(32))];
  const created = [
    await gatehouse.stores.sessions.create(keys[0]!, records.signIn, ttlMs),
    await gatehouse.stores.sessions.create(keys[1]!, records.session, ttlMs),
  ];
  if (created.includes(false)) throw new Error(`session ${index} was not stored: a key collided`);
  return keys;
}

const sample = signedInRecords(count, Date.now());
// Warm every code path once, so compiled code and inline caches are not counted.
const firstKeys = await writeSession(0, Date.now());
await gatehouse.stores.sessions.destroy('none');
const before = settledMemory();
const now = Date.now();
for (let index = 0; index < count; index++) await writeSession(index, now);
const after = settledMemory();
// The store must hold every record, or the figure flatters it: each was created (above),
// and none evicted, or the oldest, the first written, would have gone first.
for (const key of firstKeys) {
  if ((await gatehouse.stores.sessions.get(key)) === undefined) throw new Error(`the store evicted records (${key})`);
}
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
