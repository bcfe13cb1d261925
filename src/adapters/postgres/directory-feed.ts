import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { DirectoryChange } from '../../application/ports/directory-store.js';
import { CHANGE_COLUMNS, changeOf, timestamp, type ChangeRow } from './directory-rows.js';

/** What runs a query: the pool, or one client holding a transaction. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

/** The channel the feed's trigger notifies on (migrations/0002_directory.sql). */
export const DIRECTORY_CHANNEL = 'gatehouse_directory';

/**
 * The transaction-level advisory lock every append takes ("gatedi"): appends, and so the
 * positions they are given, follow one another in the order their transactions commit.
 */
const FEED_LOCK = 0x6761_7465_6469;

/** A change as a write appends it: the feed gives its position and id. */
export type NewChange = Omit<DirectoryChange, 'position' | 'id'>;

/**
 * Appends `changes` in this order, inside the caller's transaction, as its last statements.
 * A bigserial is taken when a row is inserted, not when it commits: without the lock, a
 * writer could take position 7, a faster one 8 and commit first, and a subscriber that read
 * up to 8 would never see 7. Under the lock, held until commit, a position is only taken
 * once every smaller one has committed (or rolled back, leaving a gap no one waits for).
 */
export async function appendChanges(db: Queryable, changes: readonly NewChange[]): Promise<void> {
  if (changes.length === 0) return;
  await db.query('SELECT pg_advisory_xact_lock($1)', [FEED_LOCK]);
  await db.query(
    `INSERT INTO gatehouse_directory_changes (id, organization, kind, resource_type, resource_id, at, members)
     SELECT id, organization, kind, resource_type, resource_id, at, members
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::timestamptz[], $7::jsonb[])
            WITH ORDINALITY AS t(id, organization, kind, resource_type, resource_id, at, members, n)
      ORDER BY n`,
    [
      changes.map(() => randomUUID()),
      changes.map((change) => change.organization),
      changes.map((change) => change.kind),
      changes.map((change) => change.resourceType),
      changes.map((change) => change.resourceId),
      changes.map((change) => timestamp(change.at)),
      changes.map((change) => (change.members ? JSON.stringify(change.members) : null)),
    ],
  );
}

/** A position as the port gives it back: a decimal integer (bigint); anything else is a caller's bug. */
function positionOf(position: string): string {
  if (!/^(0|[1-9][0-9]{0,18})$/.test(position)) throw new RangeError('a feed position is a decimal integer');
  return position;
}

export async function selectChangesAfter(
  db: Queryable,
  position: string | undefined,
  limit: number,
): Promise<DirectoryChange[]> {
  const { rows } = await db.query<ChangeRow>(
    `SELECT ${CHANGE_COLUMNS} FROM gatehouse_directory_changes c
      WHERE c.position > $1::bigint ORDER BY c.position LIMIT $2`,
    [position === undefined ? '0' : positionOf(position), Math.max(0, Math.floor(limit))],
  );
  return rows.map(changeOf);
}

export async function selectLatestPosition(db: Queryable): Promise<string | undefined> {
  const { rows } = await db.query<{ position: string | null }>(
    'SELECT max(position)::text AS position FROM gatehouse_directory_changes',
  );
  return rows[0]?.position ?? undefined;
}

export async function deleteChangesBefore(db: Queryable, before: number, limit: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM gatehouse_directory_changes
      WHERE position IN (SELECT position FROM gatehouse_directory_changes
                          WHERE at < $1 ORDER BY at, position LIMIT $2)`,
    [timestamp(before), Math.max(0, Math.floor(limit))],
  );
  return rowCount ?? 0;
}
