import type { ScimClient } from './directory-client.js';
import { untilIdle } from './directory-process-readings.js';
import { addMembers, round2 } from './directory-sync.js';

/** The members one PATCH adds, then removes. */
export const BIG_CHANGE = 10_000;
/** Each change is made this many times (add, then remove, each time): one time is one sample. */
const ROUNDS = 3;
/** The longest the role refreshes after one change may take before the bench gives up. */
const IDLE_WITHIN_MS = 600_000;

export interface MembershipChange {
  members: number;
  /** Each PATCH's answer time (204), milliseconds. */
  addMs: number[];
  removeMs: number[];
  /** After each answer, how long the instance and PostgreSQL stayed busy (the members' session roles refreshed), milliseconds. */
  addRefreshMs: number[];
  removeRefreshMs: number[];
}

/**
 * A group of the directory gets BIG_CHANGE members in one PATCH (`add` of `members`, as
 * Okta's group push sends a big assignment), then loses them all in one PATCH (`remove` of
 * `members` with the list, Entra ID's batch shape: Okta's `members[value eq "..."]` holds
 * at most one filter's 32 comparisons). The group is read back after each to prove it.
 */
export async function bigMembershipChange(
  client: ScimClient,
  userIds: readonly string[],
  instancePid: number | undefined,
  postgresFolder: string,
): Promise<MembershipChange> {
  if (userIds.length < BIG_CHANGE) throw new Error(`a change of ${BIG_CHANGE} members needs as many users`);
  // Spread over the directory, not the first created.
  const stride = Math.floor(userIds.length / BIG_CHANGE);
  const members = Array.from({ length: BIG_CHANGE }, (_, index) => userIds[index * stride]!);
  const created = await client.expect(201, 'POST', '/Groups', {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
    displayName: `Everyone ${BIG_CHANGE}`,
    members: [],
  });
  const id = (JSON.parse(created.body) as { id: string }).id;
  const change: MembershipChange = {
    members: BIG_CHANGE,
    addMs: [],
    removeMs: [],
    addRefreshMs: [],
    removeRefreshMs: [],
  };
  for (let round = 0; round < ROUNDS; round++) {
    const added = await client.expect(204, 'PATCH', `/Groups/${id}`, addMembers(members));
    change.addMs.push(round2(added.ms));
    change.addRefreshMs.push(Math.round(await untilIdle(instancePid, postgresFolder, IDLE_WITHIN_MS)));
    await expectMembers(client, id, BIG_CHANGE);
    const removed = await client.expect(204, 'PATCH', `/Groups/${id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'remove', path: 'members', value: members.map((value) => ({ value })) }],
    });
    change.removeMs.push(round2(removed.ms));
    change.removeRefreshMs.push(Math.round(await untilIdle(instancePid, postgresFolder, IDLE_WITHIN_MS)));
    await expectMembers(client, id, 0);
  }
  return change;
}

async function expectMembers(client: ScimClient, id: string, count: number): Promise<void> {
  const group = JSON.parse((await client.expect(200, 'GET', `/Groups/${id}`)).body) as { members?: unknown[] };
  const held = group.members?.length ?? 0;
  if (held !== count) throw new Error(`the group holds ${held} members, not ${count}`);
}
