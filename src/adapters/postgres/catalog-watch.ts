import type { CatalogEntry } from '../../application/ports/connection-catalog.js';
import type { ConnectionChange } from '../../application/ports/connection-directory.js';
import type { ConnectionDeclaration } from '../../domain/connections/connection.js';
import { CatalogListener } from './catalog-listener.js';
import type { EntryChanges, KnownEntries } from './known-entries.js';

/** What a watch reads through: the catalog's queries (which keep its health) and its declare. */
export interface WatchSource {
  all(): Promise<CatalogEntry[]>;
  byIds(ids: readonly string[]): Promise<CatalogEntry[]>;
  declare(entries: readonly CatalogEntry[]): Promise<ConnectionDeclaration[]>;
  originOf(id: string): string;
  /** Whether changes flow: false from a lost listening connection (`error`) until listening and read again. */
  flowing(flowing: boolean, error?: unknown): void;
}

/** The payload the migration's TRUNCATE triggers send: no id is in upper case. */
const EVERYTHING = 'TRUNCATE';

/**
 * Reports the catalog's changes as its triggers announce them. A notification reads only
 * the entry it names, and the notifications that arrive while one read is under way are
 * read together next (a burst for one id reads it once). When listening starts, and again
 * each time the listening connection comes back, the whole catalog is read and compared
 * with what was reported (KnownEntries): what changed meanwhile is reported, and a removal
 * for each id that is gone. A read that fails is tried again every `reconnectMs`, as a
 * whole-catalog read; nothing is thrown, and nothing is reported once stopped.
 */
export class CatalogWatch {
  readonly #listener: CatalogListener;
  readonly #pending = new Set<string>();
  #everything = false;
  #listening = false;
  #working = false;
  #scheduled = false;
  #retry: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(
    connectionString: string,
    private readonly reconnectMs: number,
    private readonly known: KnownEntries,
    private readonly source: WatchSource,
    private readonly onChanges: (changes: ConnectionChange[]) => void,
  ) {
    this.#listener = new CatalogListener(connectionString, reconnectMs, {
      listening: () => {
        this.#listening = true;
        this.#everything = true;
        this.#schedule();
      },
      notified: (payload) => {
        if (payload === EVERYTHING) this.#everything = true;
        else this.#pending.add(payload);
        this.#schedule();
      },
      lost: (error) => {
        this.#listening = false;
        this.source.flowing(false, error);
      },
    });
  }

  /** Listens; once listening, the whole catalog is read, so that nothing changed since `read()` is missed. */
  start(): void {
    this.#listener.start();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retry);
    await this.#listener.stop();
  }

  #schedule(): void {
    if (this.#stopped || this.#working || this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#work();
    });
  }

  async #work(): Promise<void> {
    this.#working = true;
    try {
      while (!this.#stopped && (this.#everything || this.#pending.size > 0)) {
        if (this.#everything) {
          this.#everything = false;
          this.#pending.clear(); // read with everything else
          const listening = this.#listening;
          const changes = this.known.compareAll(await this.source.all());
          if (listening && this.#listening) this.source.flowing(true);
          await this.#report(changes);
        } else {
          const ids = [...this.#pending];
          this.#pending.clear();
          await this.#report(this.known.compareSome(ids, await this.source.byIds(ids)));
        }
      }
    } catch {
      // The catalog did not answer (its health says so): what was to be read is read again,
      // with everything else, after `reconnectMs`, or when listening again if the listening
      // connection is lost too.
      this.#everything = true;
      if (this.#listening) {
        this.#retry = setTimeout(() => this.#schedule(), this.reconnectMs);
        this.#retry.unref();
      }
    } finally {
      this.#working = false;
    }
    if (!this.#stopped && this.#pending.size > 0) this.#schedule();
  }

  /** Removals first: a connection renamed gives up its domains before the new name claims them. */
  async #report(changes: EntryChanges): Promise<void> {
    if (changes.changed.length === 0 && changes.removed.length === 0) return;
    const declarations = await this.source.declare(changes.changed);
    if (this.#stopped) return;
    this.known.accept(changes);
    const reported: ConnectionChange[] = [
      ...changes.removed.map((id) => ({ kind: 'removed' as const, name: id, origin: this.source.originOf(id) })),
      ...declarations.map((declaration) => ({ kind: 'declared' as const, declaration })),
    ];
    try {
      this.onChanges(reported);
    } catch {
      // The registry's own failure is not the catalog's: the watch goes on.
    }
  }
}
