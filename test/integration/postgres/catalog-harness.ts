import pg from 'pg';
import type { CatalogWrite, DeclareEntry, DomainProof } from '../../../src/application/ports/connection-catalog.js';
import type { ConnectionChange } from '../../../src/application/ports/connection-directory.js';
import type { Logger } from '../../../src/application/ports/logger.js';
import { PostgresConnectionCatalog } from '../../../src/adapters/postgres/postgres-connection-catalog.js';

/** The registry's view of an entry, enough for these tests: its keys as the section. */
export const declareAsIs: DeclareEntry = async (entry, origin) => ({
  name: entry.name,
  origin,
  section: entry.keys,
  problems: [],
});

/** Every line logged, as one string each (fields and message), to search for what must never be there. */
export class RecordingLogger implements Logger {
  readonly lines: string[] = [];
  debug(fields: object, message: string): void {
    this.lines.push(`debug ${message} ${JSON.stringify(fields)}`);
  }
  info(fields: object, message: string): void {
    this.lines.push(`info ${message} ${JSON.stringify(fields)}`);
  }
  warn(fields: object, message: string): void {
    this.lines.push(`warn ${message} ${JSON.stringify(fields)}`);
  }
  error(fields: object, message: string): void {
    this.lines.push(`error ${message} ${JSON.stringify(fields)}`);
  }
}

/** A connection's write: its keys as the API would store them (a sealed secret stands in as an opaque string). */
export function connectionWrite(
  name: string,
  options: { organization?: string; domains?: readonly DomainProof[]; secret?: string; clientId?: string } = {},
): CatalogWrite {
  const domains = options.domains ?? [{ domain: `${name.toLowerCase()}.example`, token: 'a'.repeat(22), misses: 0 }];
  return {
    name,
    keys: {
      Protocol: 'OpenIdConnect',
      Organization: options.organization ?? `org-${name.toLowerCase()}`,
      Domains: domains.map((proof) => proof.domain),
      Authority: `https://${name.toLowerCase()}.idp.example`,
      ClientId: options.clientId ?? `client-${name.toLowerCase()}`,
      ClientSecret: options.secret ?? 'sealed:v1:opaque',
    },
    domains,
  };
}

/**
 * How long a test waits for a change it expects. The 2 s promise is asserted where a test
 * measures it (and measured by the bench); a wait that only needs the change to come is
 * generous, so that a machine busy with other suites does not fail it.
 */
export const CHANGE_WAIT_MS = 8_000;

/** The changes a watch reported, in order, each with when it arrived; waits for the one a test expects. */
export class ChangeRecorder {
  readonly changes: Array<{ at: number; change: ConnectionChange }> = [];
  readonly #waiters: Array<{ match: (change: ConnectionChange) => boolean; resolve: (at: number) => void }> = [];

  readonly onChanges = (changes: ConnectionChange[]): void => {
    const at = performance.now();
    for (const change of changes) {
      this.changes.push({ at, change });
      for (const waiter of [...this.#waiters]) {
        if (!waiter.match(change)) continue;
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve(at);
      }
    }
  };

  /** When a change matching `match` arrives (or has arrived since `since`); rejects after `withinMs`. */
  next(match: (change: ConnectionChange) => boolean, withinMs: number, since = -1): Promise<number> {
    const seen = this.changes.find((recorded) => recorded.at >= since && match(recorded.change));
    if (seen) return Promise.resolve(seen.at);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no such change within ${withinMs} ms`)), withinMs);
      this.#waiters.push({
        match,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      });
    });
  }
}

/** A declaration of `name`, with `ClientId` at `clientId` when given (how the tests tell one write from another). */
export const declared =
  (name: string, clientId?: string) =>
  (change: ConnectionChange): boolean =>
    change.kind === 'declared' &&
    change.declaration.name.toLowerCase() === name.toLowerCase() &&
    (clientId === undefined || change.declaration.section.ClientId === clientId);

export const removed =
  (name: string) =>
  (change: ConnectionChange): boolean =>
    change.kind === 'removed' && change.name === name.toLowerCase();

/** Catalogs a test opens, closed after it whatever happened. */
export class OpenCatalogs {
  readonly #open: PostgresConnectionCatalog[] = [];

  open(connectionString: string, logger: Logger = new RecordingLogger(), reconnectMs = 200): PostgresConnectionCatalog {
    const catalog = new PostgresConnectionCatalog({ connectionString, declare: declareAsIs, logger, reconnectMs });
    this.#open.push(catalog);
    return catalog;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.#open.splice(0).map((catalog) => catalog.close()));
  }
}

/** Runs SQL as another client would (psql, a provisioning job). */
export async function withSql<T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(connectionString);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
