/**
 * The directory the bench's initial sync pushes (directory-sync.ts): an organization's
 * people and groups as Okta sends them, made from their index so that nothing of them is
 * held by the bench but the ids the service gives back.
 *
 * Every user is in GROUPS_PER_USER groups, spread evenly: user `i` in groups `i`, `i + g/3`
 * and `i + 2g/3` (modulo the number of groups `g`), so with 100,000 users and 5,000 groups
 * each group holds 60 members and the push adds 300,000 memberships.
 */
export const GROUPS_PER_USER = 3;

/** A user's attributes as Okta's SCIM connector creates them (its user id as externalId). */
export function oktaUser(index: number, domain: string): Record<string, unknown> {
  const email = `person${index}@${domain}`;
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName: email,
    externalId: oktaId('00u', index),
    name: { givenName: `Given${index}`, familyName: `Family${index}` },
    displayName: `Given${index} Family${index}`,
    emails: [{ primary: true, value: email, type: 'work' }],
    active: true,
  };
}

/** A group as Okta's group push creates it: a name, its Okta id, and no members yet (they come by PATCH). */
export function oktaGroup(index: number): Record<string, unknown> {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
    displayName: `Group ${index}`,
    externalId: oktaId('00g', index),
    members: [],
  };
}

/** The indexes of the users in group `group` of `groups`, when there are `users`. */
export function membersOfGroup(group: number, groups: number, users: number): number[] {
  const members: number[] = [];
  for (let share = 0; share < GROUPS_PER_USER; share++) {
    const offset = Math.floor((share * groups) / GROUPS_PER_USER);
    const first = (((group - offset) % groups) + groups) % groups;
    for (let user = first; user < users; user += groups) members.push(user);
  }
  return members;
}

/** An id shaped like Okta's (a prefix, then 17 characters): unique per index. */
function oktaId(prefix: string, index: number): string {
  return `${prefix}${index.toString(36).padStart(17, '0')}`;
}
