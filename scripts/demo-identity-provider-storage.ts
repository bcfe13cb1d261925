/**
 * In-memory storage for the demo identity provider, given to oidc-provider as its
 * `adapter` option. Without one it uses its own and prints a "quick start
 * development-only in-memory adapter" warning at every start; this one is just as
 * development-only (nothing survives a restart), and says so here instead of in the
 * terminal of someone trying the demo.
 *
 * The members are the ones oidc-provider's adapter interface calls. Besides records by
 * id it keeps the two look-ups it needs: sessions by `uid`, and every token of a grant,
 * so that revoking a grant (as refresh-token reuse detection does) removes them all.
 */
type Payload = Record<string, unknown> & { uid?: string; grantId?: string; userCode?: string };

interface Entry {
  payload: Payload;
  /** Epoch milliseconds; Infinity when oidc-provider gave no lifetime. */
  expiresAt: number;
}

/** A sweep of expired records every this many writes keeps a long-running demo small. */
const SWEEP_EVERY_WRITES = 200;

/** One store shared by every model: oidc-provider calls `adapter(name)` once per model. */
export function demoProviderStorage(): (model: string) => DemoProviderStorage {
  const records = new Map<string, Entry>();
  return (model) => new DemoProviderStorage(model, records);
}

export class DemoProviderStorage {
  #writes = 0;

  constructor(
    private readonly model: string,
    private readonly records: Map<string, Entry>,
  ) {}

  async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
    const expiresAt = typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : Infinity;
    this.records.set(this.key(id), { payload, expiresAt });
    if (this.model === 'Session' && payload.uid) this.index(`sessionUid:${payload.uid}`, id, expiresAt);
    if (payload.userCode) this.index(`userCode:${payload.userCode}`, id, expiresAt);
    if (payload.grantId) this.addToGrant(payload.grantId, this.key(id), expiresAt);
    if (++this.#writes % SWEEP_EVERY_WRITES === 0) this.sweep();
  }

  async find(id: string): Promise<Payload | undefined> {
    return this.live(this.key(id))?.payload;
  }

  async findByUid(uid: string): Promise<Payload | undefined> {
    const id = this.live(`sessionUid:${uid}`)?.payload.id;
    return typeof id === 'string' ? this.find(id) : undefined;
  }

  async findByUserCode(userCode: string): Promise<Payload | undefined> {
    const id = this.live(`userCode:${userCode}`)?.payload.id;
    return typeof id === 'string' ? this.find(id) : undefined;
  }

  async consume(id: string): Promise<void> {
    const entry = this.live(this.key(id));
    if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id: string): Promise<void> {
    this.records.delete(this.key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const grant = this.records.get(`grant:${grantId}`);
    const members = grant?.payload.members;
    if (Array.isArray(members)) for (const key of members) if (typeof key === 'string') this.records.delete(key);
    this.records.delete(`grant:${grantId}`);
  }

  private key(id: string): string {
    return `${this.model}:${id}`;
  }

  private index(key: string, id: string, expiresAt: number): void {
    this.records.set(key, { payload: { id }, expiresAt });
  }

  private addToGrant(grantId: string, key: string, expiresAt: number): void {
    const grant = this.live(`grant:${grantId}`);
    const members = Array.isArray(grant?.payload.members) ? grant.payload.members : [];
    this.records.set(`grant:${grantId}`, {
      payload: { members: [...members, key] },
      expiresAt: Math.max(grant?.expiresAt ?? 0, expiresAt),
    });
  }

  /** The entry, unless it has expired (then it is removed). */
  private live(key: string): Entry | undefined {
    const entry = this.records.get(key);
    if (entry && entry.expiresAt <= Date.now()) {
      this.records.delete(key);
      return undefined;
    }
    return entry;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.records) if (entry.expiresAt <= now) this.records.delete(key);
  }
}
