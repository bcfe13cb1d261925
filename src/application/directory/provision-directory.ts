import type {
  DirectoryGroup,
  DirectoryUser,
  GroupAttributes,
  UserAttributes,
} from '../../domain/directory/directory-resources.js';
import type { AuditEventType, AuditLog } from '../ports/audit-log.js';
import type { Logger } from '../ports/logger.js';
import type {
  CreateOutcome,
  DeleteOutcome,
  DirectoryStore,
  GroupChange,
  WriteOutcome,
} from '../ports/directory-store.js';
import type { DirectorySessions } from './directory-sessions.js';

/** How often a PATCH without If-Match is tried again when another write came between its read and its write. */
const PATCH_ATTEMPTS = 3;

/** A group PATCH read from its operations: attributes it sets, and its members' change. */
export interface GroupPatch {
  attributes?: Partial<GroupAttributes>;
  members?: GroupChange['members'];
}

/**
 * The writes an organization's directory makes over SCIM, and what each does here beyond
 * the store: a user deactivated (active: false) or deleted is signed out everywhere; a
 * change of a group's members changes the organization roles of its members' live
 * sessions; every change is audited with the directory's id of what changed (never a
 * personal value). The caller has read and checked the body (domain/directory); the
 * organization is the one the token was made for.
 */
export class ProvisionDirectory {
  /**
   * The users whose sessions' roles are to be refreshed, by organization: each once, however
   * many changes named them meanwhile (a group push names each person once per group).
   */
  readonly #pending = new Map<string, Set<string>>();
  /** The refreshes under way, one organization's users after another: a SCIM answer never waits for them. */
  #refreshing: Promise<void> | undefined;

  constructor(
    private readonly store: DirectoryStore,
    private readonly sessions: Pick<DirectorySessions, 'deprovision' | 'refreshRoles' | 'identitiesOf'>,
    private readonly audit: AuditLog,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  /** Resolves when every role refresh started so far has ended (tests, and a graceful stop). */
  refreshed(): Promise<void> {
    return this.#refreshing ?? Promise.resolve();
  }

  async createUser(organization: string, attributes: UserAttributes): Promise<CreateOutcome<DirectoryUser>> {
    const outcome = await this.store.createUser(organization, attributes, this.now());
    if (outcome.kind === 'written') this.#audit('directory.user_created', organization, outcome.resource.id);
    return outcome;
  }

  async replaceUser(
    organization: string,
    id: string,
    attributes: UserAttributes,
    expected: number | undefined,
  ): Promise<WriteOutcome<DirectoryUser>> {
    const before = await this.store.getUser(organization, id);
    if (!before) return { kind: 'missing' };
    const outcome = await this.store.replaceUser(organization, id, attributes, expected, this.now());
    if (outcome.kind === 'written') await this.#userChanged(before, outcome.resource);
    return outcome;
  }

  /**
   * A PATCH: `change` makes the new attributes from the current ones (it throws the SCIM
   * error of an operation that cannot apply). Without If-Match, a write that lost a race
   * with another is made again on what that one wrote.
   */
  async patchUser(
    organization: string,
    id: string,
    change: (current: UserAttributes) => UserAttributes,
    expected: number | undefined,
  ): Promise<WriteOutcome<DirectoryUser>> {
    for (let attempt = 1; ; attempt += 1) {
      const before = await this.store.getUser(organization, id);
      if (!before) return { kind: 'missing' };
      if (expected !== undefined && before.version !== expected) {
        return { kind: 'stale', currentVersion: before.version };
      }
      const outcome = await this.store.replaceUser(
        organization,
        id,
        change(before.attributes),
        before.version,
        this.now(),
      );
      if (outcome.kind === 'stale' && expected === undefined && attempt < PATCH_ATTEMPTS) continue;
      if (outcome.kind === 'written') await this.#userChanged(before, outcome.resource);
      return outcome;
    }
  }

  async deleteUser(organization: string, id: string, expected: number | undefined): Promise<DeleteOutcome> {
    const user = await this.store.getUser(organization, id);
    if (!user) return { kind: 'missing' };
    // Found before the delete: the sign-ins recorded for the user are its own.
    const identities = await this.sessions.identitiesOf(user);
    const outcome = await this.store.deleteUser(organization, id, expected, this.now());
    if (outcome.kind !== 'deleted') return outcome;
    this.#audit('directory.user_deleted', organization, id);
    await this.sessions.deprovision(user, identities);
    return outcome;
  }

  async createGroup(
    organization: string,
    attributes: GroupAttributes,
    members: readonly string[],
  ): Promise<CreateOutcome<DirectoryGroup>> {
    const outcome = await this.store.createGroup(organization, attributes, members, this.now());
    if (outcome.kind !== 'written') return outcome;
    this.#audit('directory.group_created', organization, outcome.resource.id);
    if (members.length > 0) this.#refreshLater(organization, members);
    return outcome;
  }

  async replaceGroup(
    organization: string,
    id: string,
    attributes: GroupAttributes,
    members: readonly string[],
    expected: number | undefined,
  ): Promise<WriteOutcome<DirectoryGroup>> {
    return this.#changeGroup(organization, id, () => ({ attributes, members: { replace: members } }), expected);
  }

  async patchGroup(
    organization: string,
    id: string,
    patch: GroupPatch,
    expected: number | undefined,
  ): Promise<WriteOutcome<DirectoryGroup>> {
    return this.#changeGroup(
      organization,
      id,
      (current) => ({
        ...(patch.attributes ? { attributes: { ...current.attributes, ...patch.attributes } } : {}),
        ...(patch.members ? { members: patch.members } : {}),
      }),
      expected,
    );
  }

  async deleteGroup(organization: string, id: string, expected: number | undefined): Promise<DeleteOutcome> {
    const group = await this.store.getGroup(organization, id);
    if (!group) return { kind: 'missing' };
    const members = (await this.store.membersOf(organization, id)).map((member) => member.value);
    const outcome = await this.store.deleteGroup(organization, id, expected, this.now());
    if (outcome.kind !== 'deleted') return outcome;
    this.#audit('directory.group_deleted', organization, id);
    this.#refreshLater(organization, members);
    return outcome;
  }

  async #changeGroup(
    organization: string,
    id: string,
    changeOf: (current: DirectoryGroup) => GroupChange,
    expected: number | undefined,
  ): Promise<WriteOutcome<DirectoryGroup>> {
    for (let attempt = 1; ; attempt += 1) {
      const before = await this.store.getGroup(organization, id);
      if (!before) return { kind: 'missing' };
      if (expected !== undefined && before.version !== expected) {
        return { kind: 'stale', currentVersion: before.version };
      }
      const change = changeOf(before);
      // A replace of the members changes the roles of those who leave as well as those who join.
      const leaving =
        change.members && 'replace' in change.members
          ? (await this.store.membersOf(organization, id)).map((member) => member.value)
          : [];
      const outcome = await this.store.changeGroup(organization, id, change, before.version, this.now());
      if (outcome.kind === 'stale' && expected === undefined && attempt < PATCH_ATTEMPTS) continue;
      if (outcome.kind !== 'written') return outcome;
      if (change.attributes) this.#audit('directory.group_updated', organization, id);
      const touched = membersTouched(change, leaving);
      if (touched.length > 0) {
        this.#audit('directory.group_membership', organization, id);
        this.#refreshLater(organization, touched);
      } else if (change.attributes && namesChanged(before.attributes, outcome.resource.attributes)) {
        // A renamed group maps to other roles: every member's sessions follow.
        const members = (await this.store.membersOf(organization, id)).map((member) => member.value);
        this.#refreshLater(organization, members);
      }
      return outcome;
    }
  }

  async #userChanged(before: DirectoryUser, after: DirectoryUser): Promise<void> {
    const organization = after.organization;
    if (before.attributes.active && !after.attributes.active) {
      this.#audit('directory.user_deactivated', organization, after.id);
      await this.sessions.deprovision(after);
    } else if (!before.attributes.active && after.attributes.active) {
      this.#audit('directory.user_reactivated', organization, after.id);
    } else {
      this.#audit('directory.user_updated', organization, after.id);
    }
  }

  /**
   * Moves the members' live sessions onto the roles their groups grant now, after the SCIM
   * answer (a push of 10,000 members must not wait for 10,000 look-ups), one refresh after
   * another. Users named again while they wait are refreshed once (a refresh reads their
   * groups as they are then), so what waits is at most each user once, not each change: a
   * sync pushing 60,000 memberships (20,000 people in three groups each) queued as many
   * refreshes, which ran 75 s after its last answer and held every change's list meanwhile
   * (10 s now, measured). A refresh that fails is logged: the sessions keep their roles until
   * the next change or sign-in.
   */
  #refreshLater(organization: string, userIds: readonly string[]): void {
    let waiting = this.#pending.get(organization);
    if (!waiting) this.#pending.set(organization, (waiting = new Set()));
    for (const userId of userIds) waiting.add(userId);
    this.#refreshing ??= this.#refreshPending();
  }

  async #refreshPending(): Promise<void> {
    for (let next = this.#pending.entries().next(); !next.done; next = this.#pending.entries().next()) {
      const [organization, userIds] = next.value;
      this.#pending.delete(organization);
      try {
        await this.sessions.refreshRoles(organization, [...userIds]);
      } catch (error) {
        const code = error instanceof Error && 'code' in error ? String(error.code) : 'unknown';
        this.logger.warn({ organization, code }, "a directory change could not refresh its members' session roles");
      }
    }
    // Cleared in the same turn as the last look at #pending: a user queued after it starts another run.
    this.#refreshing = undefined;
  }

  #audit(type: AuditEventType, organization: string, resource: string): void {
    this.audit.record({ type, organization, resource, actor: 'directory', by: 'directory' });
  }
}

function membersTouched(change: GroupChange, leaving: readonly string[]): string[] {
  if (!change.members) return [];
  const ids = new Set<string>(leaving);
  if ('replace' in change.members) for (const id of change.members.replace) ids.add(id);
  else for (const id of [...(change.members.add ?? []), ...(change.members.remove ?? [])]) ids.add(id);
  return [...ids];
}

function namesChanged(before: GroupAttributes, after: GroupAttributes): boolean {
  return before.displayName !== after.displayName || before.externalId !== after.externalId;
}
