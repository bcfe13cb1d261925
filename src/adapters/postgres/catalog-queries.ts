import type pg from 'pg';
import type {
  CatalogEntry,
  CatalogPage,
  CatalogQuery,
  CatalogWrite,
  DomainClaim,
  DomainProof,
  ExpectedVersion,
  PutOutcome,
  RemoveOutcome,
} from '../../application/ports/connection-catalog.js';
import { ENTRY_COLUMNS, entryOf, timestamp, type EntryRow } from './catalog-rows.js';

/** What runs a query: the pool, or one client holding a transaction. */
type Queryable = Pick<pg.ClientBase, 'query'>;

/** A connection's id: its name in lower case (names compare case-insensitively). */
export function idOf(name: string): string {
  return name.toLowerCase();
}

export async function selectAll(db: Queryable): Promise<CatalogEntry[]> {
  const { rows } = await db.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM gatehouse_connections c ORDER BY c.id`);
  return rows.map(entryOf);
}

/** The entries of these ids that exist (one query, whatever their number). */
export async function selectByIds(db: Queryable, ids: readonly string[]): Promise<CatalogEntry[]> {
  const { rows } = await db.query<EntryRow>(
    `SELECT ${ENTRY_COLUMNS} FROM gatehouse_connections c WHERE c.id = ANY($1::text[]) ORDER BY c.id`,
    [ids],
  );
  return rows.map(entryOf);
}

/** One page, by keyset on the id (the primary key's order): each page is an index range, however deep. */
export async function selectPage(db: Queryable, query: CatalogQuery): Promise<CatalogPage> {
  const limit = Math.min(100, Math.max(1, Math.floor(query.limit)));
  const conditions: string[] = [];
  const values: unknown[] = [];
  const parameter = (value: unknown) => `$${values.push(value)}`;
  if (query.after !== undefined) conditions.push(`c.id > ${parameter(idOf(query.after))}`);
  if (query.organization !== undefined) conditions.push(`c.organization = ${parameter(query.organization)}`);
  if (query.domain !== undefined) {
    conditions.push(
      `EXISTS (SELECT 1 FROM gatehouse_connection_domains d WHERE d.connection_id = c.id AND d.domain = ${parameter(query.domain)})`,
    );
  }
  const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  // One more than the page: whether another page follows, without counting.
  const { rows } = await db.query<EntryRow>(
    `SELECT ${ENTRY_COLUMNS} FROM gatehouse_connections c ${where} ORDER BY c.id LIMIT ${parameter(limit + 1)}`,
    values,
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return rows.length > limit && last ? { entries: page.map(entryOf), next: last.id } : { entries: page.map(entryOf) };
}

export async function selectClaims(db: Queryable, domain: string, exceptName: string): Promise<DomainClaim[]> {
  const { rows } = await db.query<DomainClaim>(
    `SELECT c.name, c.organization, d.verified_at IS NOT NULL AS verified
       FROM gatehouse_connection_domains d JOIN gatehouse_connections c ON c.id = d.connection_id
      WHERE d.domain = $1 AND d.connection_id <> $2
      ORDER BY c.id`,
    [domain, idOf(exceptName)],
  );
  return rows.map(({ name, organization, verified }) => ({ name, organization, verified }));
}

/** Entries with a verified domain not checked since `before`: those never checked first, then the longest unchecked. */
export async function selectDue(db: Queryable, before: number, limit: number): Promise<CatalogEntry[]> {
  const { rows } = await db.query<EntryRow>(
    `WITH due AS (
       SELECT connection_id, bool_or(checked_at IS NULL) AS never, min(checked_at) AS oldest
         FROM gatehouse_connection_domains
        WHERE verified_at IS NOT NULL AND (checked_at IS NULL OR checked_at < $1)
        GROUP BY connection_id
        ORDER BY never DESC, oldest, connection_id
        LIMIT $2)
     SELECT ${ENTRY_COLUMNS} FROM due JOIN gatehouse_connections c ON c.id = due.connection_id
      ORDER BY due.never DESC, due.oldest, c.id`,
    [timestamp(before), Math.max(0, Math.floor(limit))],
  );
  return rows.map(entryOf);
}

/**
 * Writes an entry if it is at `expected`, inside the caller's transaction. The version check
 * is the write's own condition, so it is atomic with it: an UPDATE ... WHERE version = n
 * waits for a concurrent writer's commit and then finds the row at n + 1 (no row updated:
 * a conflict); an INSERT ... ON CONFLICT DO NOTHING waits for a concurrent create's commit
 * and then inserts nothing. Nothing is written on a conflict (the caller rolls back).
 */
export async function writeEntry(
  db: Queryable,
  write: CatalogWrite,
  expected: ExpectedVersion,
  at: number,
): Promise<PutOutcome> {
  const id = idOf(write.name);
  const row = [id, write.name, write.keys, timestamp(at)];
  let version: number | undefined;
  if (expected === 0) {
    const { rows } = await db.query<{ version: number }>(
      `INSERT INTO gatehouse_connections (id, name, keys, version, updated_at)
       VALUES ($1, $2, $3, 1, $4) ON CONFLICT (id) DO NOTHING RETURNING version`,
      row,
    );
    version = rows[0]?.version;
  } else if (expected === undefined) {
    // Last writer wins: an update always leaves version 2 or more, so version 1 is a create.
    const { rows } = await db.query<{ version: number }>(
      `INSERT INTO gatehouse_connections AS c (id, name, keys, version, updated_at)
       VALUES ($1, $2, $3, 1, $4)
       ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, keys = EXCLUDED.keys,
         version = c.version + 1, updated_at = EXCLUDED.updated_at
       RETURNING version`,
      row,
    );
    version = rows[0]?.version;
  } else {
    const { rows } = await db.query<{ version: number }>(
      `UPDATE gatehouse_connections SET name = $2, keys = $3, version = version + 1, updated_at = $4
        WHERE id = $1 AND version = $5 RETURNING version`,
      [...row, expected],
    );
    version = rows[0]?.version;
  }
  if (version === undefined) return { kind: 'conflict', currentVersion: await versionOf(db, id) };
  await replaceDomains(db, id, write.domains);
  return {
    kind: 'written',
    entry: { name: write.name, keys: write.keys, domains: write.domains, version, updatedAt: at },
    created: version === 1,
  };
}

/** Removes an entry if it is at `expected` (its domains go with it: ON DELETE CASCADE), in one statement. */
export async function deleteEntry(db: Queryable, name: string, expected: ExpectedVersion): Promise<RemoveOutcome> {
  const id = idOf(name);
  if (expected !== 0) {
    const { rowCount } =
      expected === undefined
        ? await db.query('DELETE FROM gatehouse_connections WHERE id = $1', [id])
        : await db.query('DELETE FROM gatehouse_connections WHERE id = $1 AND version = $2', [id, expected]);
    if ((rowCount ?? 0) > 0) return { kind: 'removed' };
  }
  const current = await versionOf(db, id);
  return current === undefined ? { kind: 'absent' } : { kind: 'conflict', currentVersion: current };
}

async function versionOf(db: Queryable, id: string): Promise<number | undefined> {
  const { rows } = await db.query<{ version: number }>('SELECT version FROM gatehouse_connections WHERE id = $1', [id]);
  return rows[0]?.version;
}

/** The entry's domains become exactly `domains` (one statement each for removing and inserting, whatever their number). */
async function replaceDomains(db: Queryable, id: string, domains: readonly DomainProof[]): Promise<void> {
  await db.query('DELETE FROM gatehouse_connection_domains WHERE connection_id = $1', [id]);
  if (domains.length === 0) return;
  await db.query(
    `INSERT INTO gatehouse_connection_domains (connection_id, domain, token, verified_at, checked_at, misses)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::integer[])`,
    [
      id,
      domains.map((proof) => proof.domain),
      domains.map((proof) => proof.token),
      domains.map((proof) => timestamp(proof.verifiedAt)),
      domains.map((proof) => timestamp(proof.checkedAt)),
      domains.map((proof) => proof.misses),
    ],
  );
}
