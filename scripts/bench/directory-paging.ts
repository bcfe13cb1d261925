import { performance } from 'node:perf_hooks';
import { median } from './cold-start.js';
import type { ScimClient } from './directory-client.js';
import { postgresCpuSeconds } from './directory-process-readings.js';
import { percentile, round2 } from './directory-sync.js';
import { cpuSecondsOf } from './processes.js';

/** The page Okta's import asks for, and the most a client may ask for (scim-request.ts). */
export const PAGE_SIZES = [100, 1_000] as const;

export interface DirectoryPaging {
  pageSize: number;
  pages: number;
  /** From the first request to the last page's answer, milliseconds. */
  ms: number;
  /** Each page's answer time, milliseconds. */
  medianMs: number;
  p99Ms: number;
  lastPageMs: number;
  /** Per request, milliseconds of CPU; undefined without /proc. */
  instanceCpuMs: number | undefined;
  postgresCpuMs: number | undefined;
}

/**
 * A directory reading every user the organization holds, as Okta's import does (and its
 * check of what the application holds): `GET /Users?startIndex=N&count=<size>` without a
 * filter, one page after the other, one request at a time, until the total is read. Each
 * page must be full but the last, hold the total the first gave, and every user made by the
 * sync must be read exactly once: a bench that skipped or repeated users would measure
 * another thing.
 */
export async function pageThroughUsers(
  client: ScimClient,
  userIds: readonly string[],
  instancePid: number | undefined,
  postgresFolder: string,
): Promise<DirectoryPaging[]> {
  const pagings: DirectoryPaging[] = [];
  for (const pageSize of PAGE_SIZES)
    pagings.push(await pageThrough(client, pageSize, userIds, instancePid, postgresFolder));
  return pagings;
}

async function pageThrough(
  client: ScimClient,
  pageSize: number,
  userIds: readonly string[],
  instancePid: number | undefined,
  postgresFolder: string,
): Promise<DirectoryPaging> {
  const expected = new Set(userIds);
  const times: number[] = [];
  const instanceBefore = cpuSecondsOf(instancePid);
  const postgresBefore = postgresCpuSeconds(postgresFolder);
  const started = performance.now();
  for (let startIndex = 1; startIndex <= userIds.length; startIndex += pageSize) {
    const answer = await client.expect(200, 'GET', `/Users?startIndex=${startIndex}&count=${pageSize}`);
    times.push(answer.ms);
    const page = JSON.parse(answer.body) as { totalResults?: unknown; Resources?: Array<{ id?: unknown }> };
    const resources = page.Resources ?? [];
    if (page.totalResults !== userIds.length)
      throw new Error(`page ${startIndex} says ${String(page.totalResults)} users, not ${userIds.length}`);
    if (resources.length !== Math.min(pageSize, userIds.length - startIndex + 1))
      throw new Error(`page ${startIndex} holds ${resources.length} users`);
    for (const { id } of resources)
      if (typeof id !== 'string' || !expected.delete(id))
        throw new Error(`page ${startIndex} repeats or invents a user`);
  }
  const ms = performance.now() - started;
  if (expected.size > 0) throw new Error(`${expected.size} users were never read`);
  const perRequest = (before: number | undefined, after: number | undefined) =>
    before === undefined || after === undefined ? undefined : round2(((after - before) * 1000) / times.length);
  return {
    pageSize,
    pages: times.length,
    ms: Math.round(ms),
    medianMs: round2(median(times)),
    p99Ms: round2(percentile(times, 0.99)),
    lastPageMs: round2(times.at(-1) ?? Number.NaN),
    instanceCpuMs: perRequest(instanceBefore, cpuSecondsOf(instancePid)),
    postgresCpuMs: perRequest(postgresBefore, postgresCpuSeconds(postgresFolder)),
  };
}
