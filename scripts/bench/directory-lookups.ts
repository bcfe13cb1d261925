import { filterQuery, type ScimClient } from './directory-client.js';
import { oktaUser } from './directory-people.js';
import { percentile, round2 } from './directory-sync.js';
import { median } from './cold-start.js';
import { cpuSecondsOf } from './processes.js';

/** Lookups of each filter, one at a time, after a few to warm up. */
export const LOOKUPS = 300;
const WARM_UPS = 20;

export interface LookupTiming {
  filter: string;
  lookups: number;
  /** From sending the request to the end of the answer, milliseconds. */
  medianMs: number;
  p99Ms: number;
  /** The instance's CPU per lookup (PostgreSQL's not counted), milliseconds; undefined without /proc. */
  instanceCpuMs: number | undefined;
}

/** The filters a directory finds one person by: Okta's userName, an id, and an e-mail (both spellings). */
const FILTERS: Array<{ name: string; of: (user: Record<string, unknown>) => string }> = [
  { name: 'userName eq', of: (user) => `userName eq "${String(user.userName).toUpperCase()}"` },
  { name: 'externalId eq', of: (user) => `externalId eq "${String(user.externalId)}"` },
  { name: 'emails.value eq', of: (user) => `emails.value eq "${emailOf(user)}"` },
  { name: 'emails[value eq]', of: (user) => `emails[value eq "${emailOf(user)}"]` },
];

/**
 * `GET /Users?filter=...` for users spread over the whole directory (each must find exactly
 * one), one request at a time so that each time is one lookup's, not a queue's.
 */
export async function filteredLookups(
  client: ScimClient,
  domain: string,
  users: number,
  instancePid: number | undefined,
): Promise<LookupTiming[]> {
  const timings: LookupTiming[] = [];
  for (const { name, of } of FILTERS) {
    const lookup = async (run: number) => {
      // A different user each time, spread over the directory (a prime stride).
      const index = (run * 7_919 + 13) % users;
      const answer = await client.expect(200, 'GET', `/Users?${filterQuery(of(oktaUser(index, domain)))}`);
      const total = (JSON.parse(answer.body) as { totalResults?: unknown }).totalResults;
      if (total !== 1) throw new Error(`the filter ${name} found ${String(total)} users, not 1`);
      return answer.ms;
    };
    for (let run = 0; run < WARM_UPS; run++) await lookup(LOOKUPS + run);
    const before = cpuSecondsOf(instancePid);
    const times: number[] = [];
    for (let run = 0; run < LOOKUPS; run++) times.push(await lookup(run));
    const after = cpuSecondsOf(instancePid);
    timings.push({
      filter: name,
      lookups: LOOKUPS,
      medianMs: round2(median(times)),
      p99Ms: round2(percentile(times, 0.99)),
      instanceCpuMs:
        before === undefined || after === undefined ? undefined : round2(((after - before) * 1000) / LOOKUPS),
    });
  }
  return timings;
}

function emailOf(user: Record<string, unknown>): string {
  const [email] = user.emails as Array<{ value: string }>;
  return email!.value;
}
