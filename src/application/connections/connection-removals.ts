import { inject, injectable } from 'tsyringe';
import type { ProjectTemplateSettings } from '../../domain/settings/settings.js';
import { ClockToken, type Clock } from '../ports/clock.js';
import { ReplayRecordStoreToken, type SessionStore } from '../ports/session-store.js';
import { SettingsToken } from '../settings-token.js';

/**
 * When each connection was last removed (its file deleted, `Enabled` false, moved to
 * another organization): a session that started before then belongs to a connection that
 * is gone, even once a connection of that name is back, and is ended at its next request
 * (AuthenticateSession), whether or not the ending by index found it.
 *
 * The time is kept in this process, set the moment the removal is seen, so the check on a
 * signed-in request is a Map lookup; and in the replay-record store (never evicted early),
 * for every instance and for a restart. A process reads a connection's stored time once,
 * at the first request of one of its sessions, and again whenever the connection is
 * declared anew: no store round trip per request. A mark lives as long as a session can
 * (`AbsoluteLifetime`): no session it could end is older.
 */
@injectable()
export class ConnectionRemovals {
  /** Latest removal known here, by connection id (lower-case name); 0 when none. */
  readonly #removedAt = new Map<string, number>();
  readonly #loading = new Map<string, Promise<number>>();
  readonly #ttlMs: number;

  constructor(
    @inject(ReplayRecordStoreToken) private readonly store: SessionStore,
    @inject(ClockToken) private readonly clock: Clock,
    @inject(SettingsToken) settings: ProjectTemplateSettings,
  ) {
    this.#ttlMs = settings.Session.AbsoluteLifetime * 1000;
  }

  /**
   * The connection is removed now: known here at once (before this returns its promise),
   * then written for the other instances. The stored time is replaced, never made older by
   * an instance that saw the removal later or earlier: each writes its own, seconds apart.
   */
  async recordRemoval(name: string): Promise<void> {
    const id = name.toLowerCase();
    const at = this.clock.now();
    this.#remember(id, at);
    const key = removalKey(id);
    if (await this.store.replace(key, { at }, this.#ttlMs)) return;
    if (!(await this.store.create(key, { at }, this.#ttlMs))) await this.store.replace(key, { at }, this.#ttlMs);
  }

  /**
   * Whether a session of the connection that started at `startedAt` (the session's
   * `createdAt`; a session without one is treated as the oldest) predates its latest
   * removal. A boolean when the removal time is known here: the signed-in request path
   * pays a Map lookup; a promise the first time a process meets the connection.
   */
  endedBy(name: string, startedAt: unknown): boolean | Promise<boolean> {
    const id = name.toLowerCase();
    const known = this.#removedAt.get(id);
    if (known !== undefined) return predates(startedAt, known);
    return this.#load(id).then((removedAt) => predates(startedAt, removedAt));
  }

  /** The connection was declared (again): its stored removal time is read anew at its next session's request. */
  refresh(name: string): void {
    const id = name.toLowerCase();
    // What this process saw itself stays known until the store's answer comes.
    if ((this.#removedAt.get(id) ?? 0) === 0) this.#removedAt.delete(id);
    void this.#load(id).catch(() => undefined);
  }

  #load(id: string): Promise<number> {
    const pending = this.#loading.get(id);
    if (pending) return pending;
    const loading = this.store
      .get(removalKey(id))
      .then((record) => {
        const stored = typeof record?.at === 'number' ? record.at : 0;
        return this.#remember(id, stored);
      })
      .finally(() => this.#loading.delete(id));
    this.#loading.set(id, loading);
    return loading;
  }

  #remember(id: string, at: number): number {
    const latest = Math.max(at, this.#removedAt.get(id) ?? 0);
    this.#removedAt.set(id, latest);
    return latest;
  }
}

function predates(startedAt: unknown, removedAt: number): boolean {
  if (removedAt === 0) return false;
  return typeof startedAt !== 'number' || startedAt <= removedAt;
}

/** The store key of a connection's removal time (its name is no secret; keys carry no user identifier). */
function removalKey(id: string): string {
  return `connection-removed:${id}`;
}
