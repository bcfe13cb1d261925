import type { DirectoryScale, InstanceMemory } from './directory-scale.js';
import type { SyncPhase } from './directory-sync.js';
import type { Target } from './targets.js';

/** The issue's bound on a full initial sync of 100,000 users and 5,000 groups. */
const SYNC_WITHIN_MS = 120_000;
/** The same bound on reading every user back a page of 100 at a time, as Okta's import does. */
const PAGING_WITHIN_MS = 120_000;
/** The page Okta's import asks for. */
const OKTA_PAGE = 100;
const LOOKUP_WITHIN_MS = 20;
/**
 * A PATCH of 10,000 members answered within the statement timeout of one statement
 * (catalog-pool.ts, 1.5 s): then none of its statements can have come near it.
 */
const BIG_PATCH_WITHIN_MS = 1_500;
/**
 * "Unchanged within noise": what the instance holds after full collections (heap used and
 * external) after the sync, at most this much above what it held after the warm-up. A
 * directory kept in the process would cost a few hundred bytes a user at the least (its
 * JSON alone is about 300), tens of megabytes at 100,000; the same instance measured twice
 * while idle differs by well under a megabyte.
 */
export const MEMORY_NOISE_BYTES = 2 * 1024 * 1024;

const thousands = (count: number) => count.toLocaleString('en-US');
const mib = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);
const held = (memory: InstanceMemory) => memory.heapUsed + memory.external;

/** The directory's lines: the sync's phases, the lookups, the big PATCH, and memory. */
export function printDirectory(scale: DirectoryScale): void {
  const { sync, paging, lookups, membership, memory } = scale;
  const total = sync.users.ms + sync.groups.ms;
  console.log(
    `directory sync on PostgreSQL ${scale.postgres}, ${thousands(scale.users)} users and ${thousands(scale.groups)} groups, ${sync.concurrency} requests in flight: ${(total / 1000).toFixed(1)} s in all`,
  );
  const phase = (name: string, p: SyncPhase) =>
    `  ${name}: ${thousands(p.count)} in ${(p.ms / 1000).toFixed(1)} s, ${thousands(p.requests)} requests (${thousands(Math.round((p.requests * 1000) / p.ms))}/s), CPU per request: instance ${p.instanceCpuMs ?? 'n/a'} ms, PostgreSQL ${p.postgresCpuMs ?? 'n/a'} ms; ${Object.entries(
      p.latencies,
    )
      .map(([kind, { medianMs, p99Ms }]) => `${kind} ${medianMs} ms (p99 ${p99Ms} ms)`)
      .join(', ')}`;
  console.log(phase('users (GET by userName, POST)', sync.users));
  console.log(
    `${phase('groups (GET by displayName, POST, PATCH add)', sync.groups)}; ${thousands(sync.groups.memberships)} memberships`,
  );
  console.log(
    `  the instance and PostgreSQL busy after the sync's last answer (members' role refreshes, autovacuum): ${scale.busyAfterSyncMs} ms`,
  );
  for (const p of paging)
    console.log(
      `  every user read back, ${thousands(p.pageSize)} a page, one request at a time${p.pageSize === OKTA_PAGE ? " (Okta's import; target under 2 min)" : ''}: ${(p.ms / 1000).toFixed(1)} s for ${thousands(p.pages)} pages, a page median ${p.medianMs} ms (p99 ${p.p99Ms} ms), the last ${p.lastPageMs} ms; CPU per request: instance ${p.instanceCpuMs ?? 'n/a'} ms, PostgreSQL ${p.postgresCpuMs ?? 'n/a'} ms`,
    );
  console.log(
    `  filtered lookups at ${thousands(scale.users)}, one at a time: ${lookups
      .map(
        (l) =>
          `${l.filter} median ${l.medianMs} ms, p99 ${l.p99Ms} ms${l.instanceCpuMs === undefined ? '' : ` (instance CPU ${l.instanceCpuMs} ms)`}`,
      )
      .join('; ')}`,
  );
  console.log(
    `  one PATCH of ${thousands(membership.members)} members: add ${membership.addMs.join(', ')} ms, remove ${membership.removeMs.join(', ')} ms (then busy refreshing roles: ${membership.addRefreshMs.join(', ')} / ${membership.removeRefreshMs.join(', ')} ms)`,
  );
  const { before, afterSync, end } = memory;
  console.log(
    `  instance memory held after full collections (heap used + external): ${mib(held(before))} after the warm-up, ${mib(held(afterSync))} after the sync (${held(afterSync) - held(before)} bytes more), ${mib(held(end))} at the end`,
  );
  console.log(
    `  instance resident memory: ${mib(before.rss)} after the warm-up, ${sync.rssDuringUsers.map((s) => mib(s.rssBytes)).join(', ')} at each tenth of the users, ${mib(afterSync.rss)} after the sync, ${mib(end.rss)} at the end`,
  );
}

/** The issue's targets for the directory; none when it was not measured. */
export function directoryTargets(scale: DirectoryScale | undefined): Target[] {
  if (!scale) return [];
  const users = thousands(scale.users);
  const { memory, membership } = scale;
  return [
    {
      name: `initial sync of ${users} users and ${thousands(scale.groups)} groups`,
      value: scale.sync.users.ms + scale.sync.groups.ms,
      goal: SYNC_WITHIN_MS,
      direction: 'atMost',
      unit: 'ms',
    },
    ...scale.paging
      .filter((p) => p.pageSize === OKTA_PAGE)
      .map((p): Target => ({
        name: `every one of ${users} users read back, ${p.pageSize} a page, one request at a time (Okta's import)`,
        value: p.ms,
        goal: PAGING_WITHIN_MS,
        direction: 'atMost',
        unit: 'ms',
      })),
    ...scale.lookups.flatMap((lookup): Target[] => [
      {
        name: `a ${lookup.filter} lookup at ${users}, median`,
        value: lookup.medianMs,
        goal: LOOKUP_WITHIN_MS,
        direction: 'atMost',
        unit: 'ms',
      },
      {
        name: `a ${lookup.filter} lookup at ${users}, 99th percentile`,
        value: lookup.p99Ms,
        goal: LOOKUP_WITHIN_MS,
        direction: 'atMost',
        unit: 'ms',
      },
    ]),
    {
      name: `one PATCH adding ${thousands(membership.members)} members, the slowest of ${membership.addMs.length}`,
      value: Math.max(...membership.addMs),
      goal: BIG_PATCH_WITHIN_MS,
      direction: 'atMost',
      unit: 'ms',
    },
    {
      name: `one PATCH removing ${thousands(membership.members)} members, the slowest of ${membership.removeMs.length}`,
      value: Math.max(...membership.removeMs),
      goal: BIG_PATCH_WITHIN_MS,
      direction: 'atMost',
      unit: 'ms',
    },
    {
      name: `instance memory held after the sync of ${users}, above what it held before`,
      value: held(memory.afterSync) - held(memory.before),
      goal: MEMORY_NOISE_BYTES,
      direction: 'atMost',
      unit: 'bytes',
    },
  ];
}
