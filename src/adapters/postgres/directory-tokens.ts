import type { StoredScimToken } from '../../application/ports/directory-store.js';
import type { Queryable } from './directory-feed.js';
import { TOKEN_COLUMNS, timestamp, tokenOf, type TokenRow } from './directory-rows.js';

/** How long a token's `lastUsedAt` stands before a use writes it again. */
const LAST_USE_GRANULARITY = '1 minute';

export async function insertToken(db: Queryable, organization: string, token: StoredScimToken): Promise<void> {
  await db.query(
    `INSERT INTO gatehouse_directory_tokens (organization, id, hash, created_at, last_used_at) VALUES ($1, $2, $3, $4, $5)`,
    [
      organization,
      token.id,
      token.hash,
      timestamp(token.createdAt),
      token.lastUsedAt === undefined ? null : timestamp(token.lastUsedAt),
    ],
  );
}

export async function selectTokens(db: Queryable, organization: string): Promise<StoredScimToken[]> {
  const { rows } = await db.query<TokenRow>(
    `SELECT ${TOKEN_COLUMNS} FROM gatehouse_directory_tokens t WHERE t.organization = $1 ORDER BY t.created_at, t.id`,
    [organization],
  );
  return rows.map(tokenOf);
}

export async function deleteToken(db: Queryable, organization: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM gatehouse_directory_tokens WHERE organization = $1 AND id = $2', [
    organization,
    id,
  ]);
  return (rowCount ?? 0) > 0;
}

export async function selectTokenByHash(
  db: Queryable,
  hash: string,
): Promise<(StoredScimToken & { organization: string }) | undefined> {
  const { rows } = await db.query<TokenRow>(
    `SELECT ${TOKEN_COLUMNS} FROM gatehouse_directory_tokens t WHERE t.hash = $1`,
    [hash],
  );
  const row = rows[0];
  return row && { ...tokenOf(row), organization: row.organization };
}

/** One statement whose condition is the minute: concurrent requests write it once. */
export async function touchToken(db: Queryable, organization: string, id: string, at: number): Promise<void> {
  await db.query(
    `UPDATE gatehouse_directory_tokens SET last_used_at = $3
      WHERE organization = $1 AND id = $2
        AND (last_used_at IS NULL OR last_used_at <= $3::timestamptz - interval '${LAST_USE_GRANULARITY}')`,
    [organization, id, timestamp(at)],
  );
}
