import type { CatalogEntry, DomainProof } from '../../application/ports/connection-catalog.js';

/**
 * The columns of an entry, its domains as one JSON array (one round trip for a page, the
 * whole catalog or one notified entry), times as milliseconds since the epoch. `c` is
 * `gatehouse_connections`.
 */
export const ENTRY_COLUMNS = `
  c.id, c.name, c.keys, c.version, ${millis('c.updated_at')} AS updated_at,
  COALESCE((
    SELECT json_agg(json_build_object(
      'domain', d.domain, 'token', d.token, 'verifiedAt', ${millis('d.verified_at')},
      'checkedAt', ${millis('d.checked_at')}, 'misses', d.misses) ORDER BY d.domain)
    FROM gatehouse_connection_domains d WHERE d.connection_id = c.id
  ), '[]') AS domains`;

/** A timestamptz as whole milliseconds since the epoch, a float8 so that pg returns a number (bigint comes back as text). */
function millis(column: string): string {
  return `floor(extract(epoch FROM ${column}) * 1000)::float8`;
}

export interface EntryRow {
  id: string;
  name: string;
  keys: unknown;
  version: number;
  updated_at: number;
  domains: unknown;
}

/**
 * A row as the port's entry. Rows may have been written by anyone with SQL, so the JSON
 * parts are narrowed, not trusted: keys that are not an object read as none (the
 * declaration then fails the connection rules, by name), and a malformed domain is left out.
 */
export function entryOf(row: EntryRow): CatalogEntry {
  return {
    name: row.name,
    keys: isObject(row.keys) ? row.keys : {},
    domains: Array.isArray(row.domains) ? row.domains.flatMap(proofOf) : [],
    version: row.version,
    updatedAt: row.updated_at,
  };
}

function proofOf(value: unknown): DomainProof[] {
  if (!isObject(value) || typeof value.domain !== 'string' || typeof value.token !== 'string') return [];
  const proof: DomainProof = {
    domain: value.domain,
    token: value.token,
    misses: typeof value.misses === 'number' ? value.misses : 0,
  };
  if (typeof value.verifiedAt === 'number') proof.verifiedAt = value.verifiedAt;
  if (typeof value.checkedAt === 'number') proof.checkedAt = value.checkedAt;
  return [proof];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A time the port gives in milliseconds, as a timestamptz parameter: ISO 8601 in UTC, exact to the millisecond. */
export function timestamp(millis: number | undefined): string | null {
  return millis === undefined ? null : new Date(millis).toISOString();
}
