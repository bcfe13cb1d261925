import type { DirectoryPage, DirectoryQuery } from '../../application/ports/directory-store.js';
import type { DirectoryFilter, GroupAttribute, UserAttribute } from '../../domain/directory/directory-filter.js';
import type { DirectoryGroup, DirectoryUser } from '../../domain/directory/directory-resources.js';
import { groupFilterSql, userFilterSql, type Parameter } from './directory-filter-sql.js';
import { RESOURCE_COLUMNS, groupOf, rowOf, rowsOf, userOf, type ResourceRow } from './directory-rows.js';
import type { SqliteDatabase, SqliteValue } from './node-sqlite.js';

export function findUsers(
  db: SqliteDatabase,
  organization: string,
  query: DirectoryQuery<UserAttribute>,
): DirectoryPage<DirectoryUser> {
  return findPage(db, 'directory_users', 'r.deleted_at IS NULL', organization, query, userFilterSql, userOf);
}

export function findGroups(
  db: SqliteDatabase,
  organization: string,
  query: DirectoryQuery<GroupAttribute>,
): DirectoryPage<DirectoryGroup> {
  return findPage(db, 'directory_groups', 'TRUE', organization, query, groupFilterSql, groupOf);
}

/**
 * One page of a table's live rows of the organization matching the filter, in the order of
 * creation (created, then the order of insertion), and the number of all matches. Two
 * statements, one after the other with nothing between them (the store's calls are
 * synchronous), so the total is the page's. SCIM pages by index (startIndex): an OFFSET.
 */
function findPage<A extends string, T>(
  db: SqliteDatabase,
  table: string,
  live: string,
  organization: string,
  query: DirectoryQuery<A>,
  filterSql: (filter: DirectoryFilter<A>, parameter: Parameter, organization: string) => string,
  resourceOf: (row: ResourceRow) => T,
): DirectoryPage<T> {
  const values: SqliteValue[] = [];
  const parameter: Parameter = (value) => `?${values.push(value)}`;
  const org = parameter(organization);
  const filter = query.filter ? filterSql(query.filter, parameter, org) : 'TRUE';
  const where = `r.organization = ${org} AND ${live} AND (${filter})`;
  const total = rowOf<{ total: number }>(
    db,
    `SELECT count(*) AS total FROM ${table} r WHERE ${where}`,
    ...values,
  )!.total;
  const count = whole(query.count);
  if (total === 0 || count === 0) return { total, resources: [] };
  const offset = parameter(whole(query.startIndex - 1));
  const limit = parameter(count);
  const rows = rowsOf<ResourceRow>(
    db,
    `SELECT ${RESOURCE_COLUMNS} FROM ${table} r WHERE ${where}
      ORDER BY r.created, r.creation_order LIMIT ${limit} OFFSET ${offset}`,
    ...values,
  );
  return { total, resources: rows.map(resourceOf) };
}

/** A count as SQL takes it: a whole number, 0 for anything below (or not a number). */
function whole(value: number): number {
  return Number.isFinite(value) ? Math.max(0, Math.floor(value)) : 0;
}
