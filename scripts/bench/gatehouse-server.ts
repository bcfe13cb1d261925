/**
 * One benchmarked Gatehouse: the compiled app from dist/, composed by createGatehouse
 * as main.js composes it, with one signed-in session written through its session store.
 *
 *   node --import tsx scripts/bench/gatehouse-server.ts
 *
 * Configuration comes from the environment the parent passes (store, Redis URL, key
 * prefix). The request log is written at level info to BENCH_LOG_FILE (not to the
 * parent's pipe), buffered as production buffers stdout (buffered-destination.ts).
 * Prints `READY <port> <cookie header>` once listening; SIGTERM removes the session and
 * shuts down.
 */
import type { FlushSchedule } from '../../src/adapters/logging/buffered-destination.js';
import { loadCompiledGatehouse, projectRoot } from './dist-modules.js';
import { randomText, signedInRecords } from './signed-in-record.js';

const { createGatehouse, sessionStoreKey, sessionCookieName, bufferedDestination } = await loadCompiledGatehouse();

const gatehouse = await createGatehouse({
  rootDir: projectRoot,
  env: {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    ProjectTemplate__Hosting__ShutdownDrainSeconds: '0',
    ProjectTemplate__Logging__Level: 'info',
  },
  logDestination: bufferedDestination(process.env.BENCH_LOG_FILE ?? '/dev/null', logSchedule()),
});

const server = await gatehouse.listen(0, '127.0.0.1');
// Under valgrind (callgrind.ts) the server runs some fifty times slower, and Node's 5 s
// keep-alive time-out closed load-generator connections just as they were reused.
if (process.env.BENCH_KEEP_ALIVE_MS) server.keepAliveTimeout = Number(process.env.BENCH_KEEP_ALIVE_MS);
const address = server.address();
if (typeof address !== 'object' || address === null) throw new Error('not listening');

// Sign a user in the way a completed sign-in leaves things: the sign-in record, the
// session record under the hash of a fresh 256-bit token, the token in the cookie.
const token = randomText(32);
const key = sessionStoreKey(token);
const startedAt = Date.now();
const records = signedInRecords(1, startedAt, startedAt + Number(process.env.BENCH_SESSION_SEEN_AHEAD_MS ?? 0));
const ttlMs = gatehouse.settings.Session.IdleTimeout * 1000;
const sessions = sessionStoreOf(gatehouse);
await sessions.create(records.signInKey, records.signIn, ttlMs);
await sessions.create(key, records.session, ttlMs);
const cookie = `${sessionCookieName(gatehouse.settings.Session, gatehouse.environment === 'production')}=${token}`;
process.stdout.write(`READY ${address.port} ${cookie}\n`);

let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(1), 5_000).unref();
  // exit(), not a signal death: --cpu-prof writes its profile at exit.
  Promise.all([sessions.destroy(key), sessions.destroy(records.signInKey)])
    .then(() => gatehouse.shutdown())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
});

/**
 * The session store of the Gatehouse composed: `stores.sessions`, or `sessionStore` in a
 * build older than the named stores (BENCH_DIST of an earlier commit, scripts/bench/build-commit.ts).
 */
function sessionStoreOf(composed: typeof gatehouse): typeof gatehouse.stores.sessions {
  const older = composed as unknown as { sessionStore?: typeof gatehouse.stores.sessions };
  return composed.stores?.sessions ?? older.sessionStore ?? missing();
}

function missing(): never {
  throw new Error('the composed Gatehouse has no session store (stores.sessions or sessionStore)');
}

/**
 * The log's lines leave in 4 KB blocks, and at least every 250 ms. Under valgrind
 * (BENCH_LOG_BLOCKS_ONLY, callgrind.ts) blocks only: a quarter second there holds a few
 * dozen requests where at native speed it holds thousands, so the timer, not the block,
 * would decide how lines leave, and more often the busier the machine.
 */
function logSchedule(): { schedule?: FlushSchedule } {
  return process.env.BENCH_LOG_BLOCKS_ONLY === '1' ? { schedule: () => () => undefined } : {};
}
