import type { OrganizationBinding } from '../../domain/connections/organization-guard.js';
import { withDirectoryRoles } from '../../domain/directory/directory-roles.js';
import type { DirectoryUser } from '../../domain/directory/directory-resources.js';
import { isExpired, readTimes, remainingMs, type SessionLifetime } from '../../domain/session-lifetime.js';
import type { DirectoryStore } from '../ports/directory-store.js';
import type { SessionStore } from '../ports/session-store.js';
import type { SessionIndex } from '../sign-in/session-index.js';
import type { SignInRecords } from '../sign-in/sign-in-records.js';
import type { EndSessions } from '../use-cases/end-sessions.js';

/** The connections of an organization, as the registry holds them now. */
export interface OrganizationConnections {
  /** The provider key (the connection's name) and binding of each connection of `organization`. */
  of(organization: string): { provider: string; binding: OrganizationBinding }[];
  bindingOf(provider: string): OrganizationBinding | undefined;
}

/**
 * What a directory's change does to the sessions of the people it names: a person
 * deprovisioned is signed out everywhere, and a person whose groups changed has the
 * organization roles of every live session replaced at its next request. A person's
 * sessions are found by the provider and subject of each sign-in matched to them
 * (`recordSignIn`), and, for sessions that began before the directory knew them, by each
 * connection of the organization with their `userName` and `externalId` as the subject.
 */
export class DirectorySessions {
  constructor(
    private readonly store: DirectoryStore,
    private readonly connections: OrganizationConnections,
    private readonly endSessions: Pick<EndSessions, 'execute'>,
    private readonly sessions: SessionStore,
    private readonly index: Pick<SessionIndex, 'sessionsOf'>,
    private readonly signIns: Pick<SignInRecords, 'read' | 'withPrincipal' | 'release'>,
    private readonly lifetime: SessionLifetime,
    private readonly now: () => number,
  ) {}

  /** Ends every session of the user at its organization (audited `sessions.ended`, cause `directory_deprovisioned`). */
  async deprovision(
    user: DirectoryUser,
    identities?: readonly { provider: string; subject: string }[],
  ): Promise<number> {
    let ended = 0;
    for (const { provider, subject } of identities ?? (await this.identitiesOf(user))) {
      ended += await this.endSessions.execute(
        { provider, subject },
        { by: 'directory', cause: 'directory_deprovisioned' },
      );
    }
    return ended;
  }

  /**
   * Gives every live session of these users the organization roles their groups grant now.
   * A session is moved onto a new sign-in record (SignInRecords.withPrincipal) and the old
   * record released: a request of that session already under way that writes the session
   * back with the old reference finds no sign-in there, and is signed out rather than kept
   * on roles the directory took away.
   */
  async refreshRoles(organization: string, userIds: readonly string[]): Promise<number> {
    let changed = 0;
    for (const userId of userIds) {
      const user = await this.store.getUser(organization, userId);
      if (!user) continue;
      const sessions: { handle: string; binding: OrganizationBinding }[] = [];
      for (const { provider, subject } of await this.identitiesOf(user)) {
        const binding = this.connections.bindingOf(provider);
        if (!binding || binding.organization !== organization) continue;
        for (const handle of await this.index.sessionsOf(provider, subject)) sessions.push({ handle, binding });
      }
      // Most people a directory pushes are signed in nowhere: their groups are not read.
      if (sessions.length === 0) continue;
      const groups = (await this.store.groupsOf(organization, userId)).map((group) => group.attributes);
      for (const { handle, binding } of sessions) {
        if (await this.#refresh(handle, binding, groups)) changed += 1;
      }
    }
    return changed;
  }

  async #refresh(
    handle: string,
    binding: OrganizationBinding,
    groups: Parameters<typeof withDirectoryRoles>[2],
  ): Promise<boolean> {
    const record = await this.sessions.get(handle);
    const times = record && readTimes(record);
    if (!record || !times || isExpired(times, this.lifetime, this.now())) return false;
    const signIn = await this.signIns.read(typeof record.signIn === 'string' ? record.signIn : undefined);
    // A session of another organization's connection under the same subject is not this directory's.
    if (!signIn || signIn.connection?.organization !== binding.organization) return false;
    const principal = withDirectoryRoles(signIn.principal, binding, groups);
    if (principal === signIn.principal) return false;
    const moved = await this.signIns.withPrincipal(signIn, principal);
    const ttl = remainingMs(times, this.lifetime, this.now());
    if (ttl <= 0 || !(await this.sessions.replace(handle, { ...record, signIn: moved.ref }, ttl))) {
      await this.signIns.release(moved.ref); // the session ended meanwhile
      return false;
    }
    await this.signIns.release(signIn.ref);
    return true;
  }

  /** Where the user's sessions are: the sign-ins recorded for them, and each connection with their names as subject. */
  async identitiesOf(user: DirectoryUser): Promise<{ provider: string; subject: string }[]> {
    const found = new Map<string, { provider: string; subject: string }>();
    const add = (provider: string, subject: string) => found.set(`${provider}\n${subject}`, { provider, subject });
    for (const recorded of await this.store.signInsOf(user.organization, user.id)) {
      add(recorded.provider, recorded.subject);
    }
    for (const { provider } of this.connections.of(user.organization)) {
      add(provider, user.attributes.userName);
      if (user.attributes.externalId !== undefined) add(provider, user.attributes.externalId);
    }
    return [...found.values()];
  }
}
