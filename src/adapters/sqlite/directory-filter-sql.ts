import type { DirectoryFilter, GroupAttribute, UserAttribute } from '../../domain/directory/directory-filter.js';
import { compileFilter, type FilterDialect, type StringMatch } from '../directory-sql/filter-compiler.js';
import { META_COLUMNS, type Column, type Schema } from '../directory-sql/filter-schema.js';
import { fold } from './directory-rows.js';
import type { SqliteValue } from './node-sqlite.js';

/** Adds a value to the statement's parameters and answers its placeholder (`?3`): values never enter the SQL text. */
export type Parameter = (value: SqliteValue) => string;

/**
 * `r` is the row of directory_users or directory_groups; `->>` reads a JSON path of its
 * attributes. `text` compares folded on both sides (see `fold`), a `boolean` is 1 or 0, a
 * `time` milliseconds.
 */
const text = (sql: string, folded?: string): Column => (folded ? { sql, kind: 'text', folded } : { sql, kind: 'text' });
const attribute = (path: string): Column => text(`(r.attributes ->> '$.${path}')`);

const USERS: Schema = {
  columns: {
    ...META_COLUMNS,
    externalId: { sql: 'r.external_id', kind: 'exact' },
    userName: text('r.user_name', 'r.user_name_key'),
    displayName: attribute('displayName'),
    active: { sql: 'r.active', kind: 'boolean' },
    title: attribute('title'),
    'name.givenName': attribute('name.givenName'),
    'name.familyName': attribute('name.familyName'),
    'name.formatted': attribute('name.formatted'),
    department: attribute('enterprise.department'),
    employeeNumber: attribute('enterprise.employeeNumber'),
    'manager.value': attribute('enterprise.manager.value'),
  },
  elements: {
    emails: {
      // Elements of an `emails` that is an array, and that are objects (anything else has no sub-attribute).
      from: (alias) => ({
        from: `json_each(r.attributes, '$.emails') ${alias}`,
        where: `json_type(r.attributes, '$.emails') = 'array' AND ${alias}.type = 'object'`,
      }),
      columns: (alias) => ({
        'emails.value': text(`(${alias}.value ->> '$.value')`),
        'emails.type': text(`(${alias}.value ->> '$.type')`),
        // A JSON boolean as 1 or 0, anything else as NULL.
        'emails.primary': {
          sql: `(CASE json_type(${alias}.value, '$.primary') WHEN 'true' THEN 1 WHEN 'false' THEN 0 END)`,
          kind: 'boolean',
        },
      }),
    },
  },
};

const GROUPS: Schema = {
  columns: {
    ...META_COLUMNS,
    externalId: { sql: 'r.external_id', kind: 'exact' },
    displayName: text('r.display_name', 'r.display_name_key'),
  },
  elements: {
    members: {
      from: (alias) => ({ from: `directory_members ${alias}`, where: `${alias}.group_id = r.id` }),
      columns: (alias) => ({ 'members.value': { sql: `${alias}.user_id`, kind: 'id' } }),
    },
  },
};

/**
 * The WHERE condition of a user filter, its values as parameters; `organization` is the
 * placeholder of the organization the query is in (the e-mail index is by organization).
 */
export function userFilterSql(
  filter: DirectoryFilter<UserAttribute>,
  parameter: Parameter,
  organization: string,
): string {
  return compileFilter(filter as DirectoryFilter<string>, USERS, sqlite(parameter, organization));
}

/** The WHERE condition of a group filter, its values as parameters. */
export function groupFilterSql(
  filter: DirectoryFilter<GroupAttribute>,
  parameter: Parameter,
  organization: string,
): string {
  return compileFilter(filter as DirectoryFilter<string>, GROUPS, sqlite(parameter, organization));
}

/** SQLite's SQL for what the stores write differently, its values added with `parameter`. */
function sqlite(parameter: Parameter, organization: string): FilterDialect {
  return {
    matchStrings: (column, op, value) => matchStrings(column, op, value, parameter),
    orderStrings: (column, operator, value) => orderStrings(column, operator, value, parameter),
    idEquals: (sql, id) => `${sql} = ${parameter(id)}`,
    idAsText: (sql) => sql,
    booleanEquals: (sql, value) => `${sql} = ${parameter(value ? 1 : 0)}`,
    compareTime: (sql, operator, at) => `${sql} ${operator} ${parameter(at)}`,
    // The index of folded e-mails.
    hasEmail: (value) => `r.id IN (SELECT m.user_id FROM directory_user_emails m
                          WHERE m.organization = ${organization} AND m.value_key = ${parameter(fold(value))})`,
  };
}

/** `co`, `sw` and `ew` find the value as a substring (instr, substr), so no character of it is a pattern. */
function matchStrings(column: Column, op: StringMatch, value: string, parameter: Parameter): string {
  const { left, right } = sides(column, value, parameter);
  switch (op) {
    case 'eq':
      return `${left} = ${right}`;
    case 'co':
      return `instr(${left}, ${right}) > 0`;
    case 'sw':
      return `instr(${left}, ${right}) = 1`;
    case 'ew':
      // substr(x, -0) would be all of x: an empty value ends every string.
      return value === '' ? `${left} IS NOT NULL` : `substr(${left}, -length(${right})) = ${right}`;
  }
}

/** Compared as code points (SQLite's BINARY: the byte order of UTF-8, as PostgreSQL's COLLATE "C"). */
function orderStrings(column: Column, operator: string, value: string, parameter: Parameter): string {
  const { left, right } = sides(column, value, parameter);
  return `${left} ${operator} ${right}`;
}

/**
 * The two sides of a string comparison: `text` folded on both (the value in JavaScript, the
 * column by its `folded` column or `directory_fold`), `exact` as it is.
 */
function sides(column: Column, value: string, parameter: Parameter): { left: string; right: string } {
  const isText = column.kind === 'text';
  const left = isText ? (column.folded ?? `directory_fold(${column.sql})`) : column.sql;
  return { left, right: parameter(isText ? fold(value) : value) };
}
