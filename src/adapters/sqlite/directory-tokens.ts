import type { StoredScimToken } from '../../application/ports/directory-store.js';
import { TOKEN_COLUMNS, millis, rowOf, rowsOf, run, tokenOf, type TokenRow } from './directory-rows.js';
import type { SqliteDatabase } from './node-sqlite.js';

/** How long a token's `lastUsedAt` stands before a use writes it again. */
const LAST_USE_GRANULARITY_MS = 60_000;

export function insertToken(db: SqliteDatabase, organization: string, token: StoredScimToken): void {
  run(
    db,
    'INSERT INTO directory_tokens (organization, id, hash, created_at, last_used_at) VALUES (?, ?, ?, ?, ?)',
    organization,
    token.id,
    token.hash,
    millis(token.createdAt),
    token.lastUsedAt === undefined ? null : millis(token.lastUsedAt),
  );
}

export function selectTokens(db: SqliteDatabase, organization: string): StoredScimToken[] {
  return rowsOf<TokenRow>(
    db,
    `SELECT ${TOKEN_COLUMNS} FROM directory_tokens t WHERE t.organization = ? ORDER BY t.created_at, t.id`,
    organization,
  ).map(tokenOf);
}

export function deleteToken(db: SqliteDatabase, organization: string, id: string): boolean {
  return run(db, 'DELETE FROM directory_tokens WHERE organization = ? AND id = ?', organization, id) > 0;
}

export function selectTokenByHash(
  db: SqliteDatabase,
  hash: string,
): (StoredScimToken & { organization: string }) | undefined {
  const row = rowOf<TokenRow>(db, `SELECT ${TOKEN_COLUMNS} FROM directory_tokens t WHERE t.hash = ?`, hash);
  return row && { ...tokenOf(row), organization: row.organization };
}

/** One statement whose condition is the minute: a use within the minute writes nothing. */
export function touchToken(db: SqliteDatabase, organization: string, id: string, at: number): void {
  run(
    db,
    `UPDATE directory_tokens SET last_used_at = ?1
      WHERE organization = ?2 AND id = ?3 AND (last_used_at IS NULL OR last_used_at <= ?1 - ?4)`,
    millis(at),
    organization,
    id,
    LAST_USE_GRANULARITY_MS,
  );
}
