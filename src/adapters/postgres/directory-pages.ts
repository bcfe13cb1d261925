import type { DirectoryPage, DirectoryQuery } from '../../application/ports/directory-store.js';
import type { DirectoryFilter, GroupAttribute, UserAttribute } from '../../domain/directory/directory-filter.js';
import type { DirectoryGroup, DirectoryUser } from '../../domain/directory/directory-resources.js';
import type { Queryable } from './directory-feed.js';
import { groupFilterFindsByKey, userFilterFindsByKey } from './directory-filter-keys.js';
import { groupFilterSql, userFilterSql, type Parameter } from './directory-filter-sql.js';
import { RESOURCE_COLUMNS, groupOf, userOf, type ResourceRow } from './directory-rows.js';

export function findUsers(
  db: Queryable,
  organization: string,
  query: DirectoryQuery<UserAttribute>,
): Promise<DirectoryPage<DirectoryUser>> {
  return findPage(
    db,
    'gatehouse_directory_users',
    'r.deleted_at IS NULL',
    organization,
    query,
    { sql: userFilterSql, findsByKey: userFilterFindsByKey },
    userOf,
  );
}

export function findGroups(
  db: Queryable,
  organization: string,
  query: DirectoryQuery<GroupAttribute>,
): Promise<DirectoryPage<DirectoryGroup>> {
  return findPage(
    db,
    'gatehouse_directory_groups',
    'TRUE',
    organization,
    query,
    { sql: groupFilterSql, findsByKey: groupFilterFindsByKey },
    groupOf,
  );
}

/**
 * One page of a table's live rows of the organization matching the filter, in the order of
 * creation (created, then the order of insertion: stable for rows created at the same time),
 * and the number of all matches, in one statement (one snapshot: the total is the page's).
 *
 * SCIM pages by index (startIndex), so a page starts at an OFFSET: only the key of its first
 * row is found there, in the order-of-creation index (an index-only scan once the table is
 * vacuumed), and the page's rows are read from that key on. An OFFSET over the rows
 * themselves read and built every row it skipped: at 100,000 users, the last of 1,000 pages
 * of 100 took 150-170 ms and all of them 70-90 s; 17 ms and 16 s this way (55-60 s before
 * the table's first vacuum). The key (created, creation_order) is unique: creation_order is
 * a sequence's.
 *
 * The organization is compared COLLATE "C", which reaches the organization's index in the
 * order of creation (migrations/0003_directory-lookup-indexes.sql), unless the filter finds
 * its rows by a key (`userName eq "..."`): then only the key's index can serve, however few
 * rows stale statistics make the organization seem to hold.
 */
async function findPage<A extends string, T>(
  db: Queryable,
  table: string,
  live: string,
  organization: string,
  query: DirectoryQuery<A>,
  filters: {
    sql: (filter: DirectoryFilter<A>, parameter: Parameter) => string;
    findsByKey: (filter: DirectoryFilter<string>) => boolean;
  },
  resourceOf: (row: ResourceRow) => T,
): Promise<DirectoryPage<T>> {
  const values: unknown[] = [];
  const parameter: Parameter = (value) => `$${values.push(value)}`;
  const filter = query.filter ? filters.sql(query.filter, parameter) : 'TRUE';
  const byKey = query.filter !== undefined && filters.findsByKey(query.filter);
  const where = `r.organization ${byKey ? '' : 'COLLATE "C" '}= ${parameter(organization)} AND ${live} AND (${filter})`;
  const offset = parameter(whole(query.startIndex - 1));
  const limit = parameter(whole(query.count));
  const text = `SELECT matches.total, page.*
       FROM (SELECT count(*)::integer AS total FROM ${table} r WHERE ${where}) matches
       LEFT JOIN LATERAL (
         SELECT ${RESOURCE_COLUMNS} FROM ${table} r WHERE ${where}
            AND (r.created, r.creation_order) >= (
              SELECT r.created, r.creation_order FROM ${table} r WHERE ${where}
               ORDER BY r.created, r.creation_order OFFSET ${offset} LIMIT 1)
          ORDER BY r.created, r.creation_order LIMIT ${limit}) page ON TRUE`;
  // A page, or one key's lookup (Okta's `userName eq` before each create) is a text of a fixed
  // few, prepared (prepared-statements.ts); any other filter's text is the client's, and goes
  // unprepared.
  const fixed = query.filter === undefined || (query.filter.op === 'eq' && byKey);
  const { rows } = await db.query<ResourceRow & { total: number }>(fixed ? text : { text }, values);
  return {
    total: rows[0]?.total ?? 0,
    resources: rows.filter((row) => row.id !== null).map(resourceOf),
  };
}

/** A count as SQL takes it: a whole number, 0 for anything below (or not a number). */
function whole(value: number): number {
  return Number.isFinite(value) ? Math.max(0, Math.floor(value)) : 0;
}
