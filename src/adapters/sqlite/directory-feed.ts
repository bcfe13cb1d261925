import { randomUUID } from 'node:crypto';
import type { DirectoryChange } from '../../application/ports/directory-store.js';
import type { SqliteDatabase } from './node-sqlite.js';
import { CHANGE_COLUMNS, changeOf, millis, rowOf, rowsOf, run, type ChangeRow } from './directory-rows.js';

/** A change as a write appends it: the feed gives its position and id. */
export type NewChange = Omit<DirectoryChange, 'position' | 'id'>;

/**
 * Appends `changes` in this order, inside the caller's transaction. One process writes the
 * file and each write is one synchronous transaction, so positions (AUTOINCREMENT: never
 * reused) are taken in the order transactions commit, and a subscriber that read up to a
 * position never sees a smaller one appear later.
 */
export function appendChanges(db: SqliteDatabase, changes: readonly NewChange[]): void {
  const insert = db.prepare(
    `INSERT INTO directory_changes (id, organization, kind, resource_type, resource_id, at, members)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const change of changes) {
    insert.run(
      randomUUID(),
      change.organization,
      change.kind,
      change.resourceType,
      change.resourceId,
      millis(change.at),
      change.members ? JSON.stringify(change.members) : null,
    );
  }
}

/** A position as the port gives it back: a decimal integer; anything else is a caller's bug. */
function positionOf(position: string): bigint {
  if (!/^(0|[1-9][0-9]{0,18})$/.test(position)) throw new RangeError('a feed position is a decimal integer');
  return BigInt(position);
}

export function selectChangesAfter(db: SqliteDatabase, position: string | undefined, limit: number): DirectoryChange[] {
  return rowsOf<ChangeRow>(
    db,
    `SELECT ${CHANGE_COLUMNS} FROM directory_changes c WHERE c.position > ? ORDER BY c.position LIMIT ?`,
    position === undefined ? 0 : positionOf(position),
    Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : 0,
  ).map(changeOf);
}

export function selectLatestPosition(db: SqliteDatabase): string | undefined {
  const row = rowOf<{ position: number | null }>(db, 'SELECT max(position) AS position FROM directory_changes');
  return row?.position == null ? undefined : String(row.position);
}

export function deleteChangesBefore(db: SqliteDatabase, before: number, limit: number): number {
  return run(
    db,
    `DELETE FROM directory_changes
      WHERE position IN (SELECT position FROM directory_changes WHERE at < ? ORDER BY at, position LIMIT ?)`,
    before,
    Math.max(0, Math.floor(limit)),
  );
}
