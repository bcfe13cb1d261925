import { performance } from 'node:perf_hooks';
import { median } from './cold-start.js';
import { filterQuery, type ScimClient } from './directory-client.js';
import { membersOfGroup, oktaGroup, oktaUser } from './directory-people.js';
import { postgresCpuSeconds, rssBytesOf } from './directory-process-readings.js';
import { cpuSecondsOf } from './processes.js';

/** Members Okta's group push puts in one PATCH here (a group of 60 is one PATCH). */
export const MEMBERS_PER_PATCH = 100;

/** One phase of the sync: its requests, its time, and the CPU the instance and PostgreSQL spent on it. */
export interface SyncPhase {
  count: number;
  requests: number;
  ms: number;
  /** Per request, milliseconds of CPU; undefined without /proc. */
  instanceCpuMs: number | undefined;
  postgresCpuMs: number | undefined;
  /** Each kind of request's answer time, median and 99th percentile, milliseconds. */
  latencies: Record<string, { medianMs: number; p99Ms: number }>;
}

export interface DirectorySync {
  concurrency: number;
  users: SyncPhase;
  groups: SyncPhase & { memberships: number };
  /** The instance's resident memory after each tenth of the users, bytes. */
  rssDuringUsers: Array<{ users: number; rssBytes: number | undefined }>;
}

/** What the sync measures, and where. */
export interface SyncTarget {
  client: ScimClient;
  /** The e-mail domain of the organization's people. */
  domain: string;
  instancePid: number | undefined;
  postgresFolder: string;
  concurrency: number;
}

/**
 * Okta's initial sync of an organization over SCIM, `concurrency` requests in flight: for
 * each user, `GET /Users?filter=userName eq "..."` (is it there?) then `POST /Users`; then
 * for each group, `GET /Groups?filter=displayName eq "..."`, `POST /Groups` without members,
 * and its members added by `PATCH` (`add` of `members`, MEMBERS_PER_PATCH at a time), the
 * way Okta's group push sends them. Answers the phases and the ids of the users made, in
 * the order of their index.
 */
export async function initialSync(
  target: SyncTarget,
  users: number,
  groups: number,
): Promise<{ sync: DirectorySync; userIds: string[] }> {
  const { client, domain } = target;
  const userIds = new Array<string>(users);
  const rssDuringUsers: DirectorySync['rssDuringUsers'] = [];
  const tenth = Math.max(1, Math.floor(users / 10));
  const usersPhase = await phase(target, users, async (index, timed) => {
    const user = oktaUser(index, domain);
    const query = filterQuery(`userName eq "${String(user.userName)}"`);
    const found = await timed('GET /Users?filter', () =>
      client.expect(200, 'GET', `/Users?${query}&startIndex=1&count=100`),
    );
    if (totalOf(found.body) !== 0) throw new Error(`user ${index} was found before it was created`);
    const created = await timed('POST /Users', () => client.expect(201, 'POST', '/Users', user));
    userIds[index] = idOf(created.body);
    if ((index + 1) % tenth === 0) {
      rssDuringUsers.push({ users: index + 1, rssBytes: rssBytesOf(target.instancePid) });
      process.stdout.write('.');
    }
  });
  let memberships = 0;
  const groupsPhase = await phase(target, groups, async (index, timed) => {
    const group = oktaGroup(index);
    const query = filterQuery(`displayName eq "${String(group.displayName)}"`);
    await timed('GET /Groups?filter', () => client.expect(200, 'GET', `/Groups?${query}&startIndex=1&count=100`));
    const created = await timed('POST /Groups', () => client.expect(201, 'POST', '/Groups', group));
    const id = idOf(created.body);
    const members = membersOfGroup(index, groups, users).map((user) => userIds[user]!);
    for (let start = 0; start < members.length; start += MEMBERS_PER_PATCH) {
      const batch = members.slice(start, start + MEMBERS_PER_PATCH);
      await timed('PATCH /Groups add', () => client.expect(204, 'PATCH', `/Groups/${id}`, addMembers(batch)));
      memberships += batch.length;
    }
    if ((index + 1) % Math.max(1, Math.floor(groups / 5)) === 0) process.stdout.write('.');
  });
  return {
    sync: {
      concurrency: target.concurrency,
      users: usersPhase,
      groups: { ...groupsPhase, memberships },
      rssDuringUsers,
    },
    userIds,
  };
}

/** Okta's PATCH adding members to a group. */
export function addMembers(ids: readonly string[]): Record<string, unknown> {
  return {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
    Operations: [{ op: 'add', path: 'members', value: ids.map((value) => ({ value })) }],
  };
}

type Timed = <T extends { ms: number }>(kind: string, send: () => Promise<T>) => Promise<T>;

/** `count` items, `concurrency` at a time, each by `work`; the phase's time, requests and CPU. */
async function phase(
  target: SyncTarget,
  count: number,
  work: (index: number, timed: Timed) => Promise<void>,
): Promise<SyncPhase> {
  const latencies = new Map<string, number[]>();
  const timed: Timed = async (kind, send) => {
    const answer = await send();
    let list = latencies.get(kind);
    if (!list) latencies.set(kind, (list = []));
    list.push(answer.ms);
    return answer;
  };
  const requestsBefore = target.client.requests;
  const instanceBefore = cpuSecondsOf(target.instancePid);
  const postgresBefore = postgresCpuSeconds(target.postgresFolder);
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) await work(next++, timed);
  };
  await Promise.all(Array.from({ length: Math.min(target.concurrency, count) }, worker));
  const ms = performance.now() - started;
  const requests = target.client.requests - requestsBefore;
  const perRequest = (before: number | undefined, after: number | undefined) =>
    before === undefined || after === undefined ? undefined : round2(((after - before) * 1000) / requests);
  return {
    count,
    requests,
    ms: Math.round(ms),
    instanceCpuMs: perRequest(instanceBefore, cpuSecondsOf(target.instancePid)),
    postgresCpuMs: perRequest(postgresBefore, postgresCpuSeconds(target.postgresFolder)),
    latencies: Object.fromEntries(
      [...latencies].map(([kind, times]) => [
        kind,
        { medianMs: round2(median(times)), p99Ms: round2(percentile(times, 0.99)) },
      ]),
    ),
  };
}

export function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? Number.NaN;
}

export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function totalOf(body: string): unknown {
  return (JSON.parse(body) as { totalResults?: unknown }).totalResults;
}

function idOf(body: string): string {
  const id = (JSON.parse(body) as { id?: unknown }).id;
  if (typeof id !== 'string') throw new Error('a created resource has no id');
  return id;
}
