import type { DirectoryFilter, GroupAttribute, UserAttribute } from '../../domain/directory/directory-filter.js';
import { compileFilter, type FilterDialect, type StringMatch } from '../directory-sql/filter-compiler.js';
import { META_COLUMNS, type Column, type Schema } from '../directory-sql/filter-schema.js';
import { equalityValue } from './directory-filter-keys.js';

/** Adds a value to the statement's parameters and answers its placeholder (`$3`): values never enter the SQL text. */
export type Parameter = (value: unknown) => string;

/** `r` is the row of gatehouse_directory_users or gatehouse_directory_groups; ids are uuid columns, times timestamptz. */
const text = (sql: string): Column => ({ sql, kind: 'text' });
const exact = (sql: string): Column => ({ sql, kind: 'exact' });
/** A JSON boolean as a boolean, anything else as NULL (no cast that could fail on a row). */
const jsonBoolean = (json: string): Column => ({
  sql: `(CASE WHEN jsonb_typeof(${json}) = 'boolean' THEN (${json})::text::boolean END)`,
  kind: 'boolean',
});

const USERS: Schema = {
  columns: {
    ...META_COLUMNS,
    externalId: exact('r.external_id'),
    userName: text('r.user_name'),
    displayName: text(`r.attributes ->> 'displayName'`),
    active: { sql: 'r.active', kind: 'boolean' },
    title: text(`r.attributes ->> 'title'`),
    'name.givenName': text(`r.attributes -> 'name' ->> 'givenName'`),
    'name.familyName': text(`r.attributes -> 'name' ->> 'familyName'`),
    'name.formatted': text(`r.attributes -> 'name' ->> 'formatted'`),
    department: text(`r.attributes -> 'enterprise' ->> 'department'`),
    employeeNumber: text(`r.attributes -> 'enterprise' ->> 'employeeNumber'`),
    'manager.value': text(`r.attributes -> 'enterprise' -> 'manager' ->> 'value'`),
  },
  elements: {
    emails: {
      from: (alias) => ({
        from: `jsonb_array_elements(CASE WHEN jsonb_typeof(r.attributes -> 'emails') = 'array'
           THEN r.attributes -> 'emails' ELSE '[]'::jsonb END) ${alias}`,
      }),
      columns: (alias) => ({
        'emails.value': text(`${alias} ->> 'value'`),
        'emails.type': text(`${alias} ->> 'type'`),
        'emails.primary': jsonBoolean(`${alias} -> 'primary'`),
      }),
    },
  },
};

const GROUPS: Schema = {
  columns: {
    ...META_COLUMNS,
    externalId: exact('r.external_id'),
    displayName: text('r.display_name'),
  },
  elements: {
    members: {
      from: (alias) => ({ from: `gatehouse_directory_members ${alias}`, where: `${alias}.group_id = r.id` }),
      columns: (alias) => ({ 'members.value': { sql: `${alias}.user_id`, kind: 'id' } }),
    },
  },
};

/** The WHERE condition (without the organization's) of a user filter, its values as parameters. */
export function userFilterSql(filter: DirectoryFilter<UserAttribute>, parameter: Parameter): string {
  return compileFilter(filter as DirectoryFilter<string>, USERS, postgres(parameter));
}

/** The WHERE condition (without the organization's) of a group filter, its values as parameters. */
export function groupFilterSql(filter: DirectoryFilter<GroupAttribute>, parameter: Parameter): string {
  return compileFilter(filter as DirectoryFilter<string>, GROUPS, postgres(parameter));
}

/** PostgreSQL's SQL for what the stores write differently, its values added with `parameter`. */
function postgres(parameter: Parameter): FilterDialect {
  // The indexed array of lower-cased e-mails.
  const hasEmail = (value: string) => `r.email_values @> ARRAY[lower(${parameter(value)})]`;
  return {
    matchStrings: (column, op, value) => matchStrings(column, op, value, parameter),
    orderStrings: (column, operator, value) => orderStrings(column, operator, value, parameter),
    idEquals: (sql, id) => `${sql} = ${parameter(id)}::uuid`,
    idAsText: (sql) => `${sql}::text`,
    booleanEquals: (sql, value) => `${sql} = ${parameter(value)}::boolean`,
    compareTime: (sql, operator, at) => `${sql} ${operator} ${parameter(new Date(at).toISOString())}::timestamptz`,
    hasEmail,
    valueFilter: (attribute, filter, exists) => {
      // `emails[value eq "x" ...]`: the users holding that e-mail through the indexed array
      // first (the EXISTS implies it), rather than every user's e-mails read.
      const email = attribute === 'emails' ? equalityValue(filter, 'emails.value') : undefined;
      return email === undefined ? exists : `(${hasEmail(email)} AND ${exists})`;
    },
  };
}

/** Equality, or LIKE with the value as a pattern that matches only itself. */
function matchStrings(column: Column, op: StringMatch, value: string, parameter: Parameter): string {
  const fold = lowerText(column);
  const left = fold(column.sql);
  switch (op) {
    case 'eq':
      return `${left} = ${fold(parameter(value))}`;
    case 'co':
      return `${left} LIKE ${fold(parameter(`%${escapeLike(value)}%`))}`;
    case 'sw':
      return `${left} LIKE ${fold(parameter(`${escapeLike(value)}%`))}`;
    case 'ew':
      return `${left} LIKE ${fold(parameter(`%${escapeLike(value)}`))}`;
  }
}

/** Order in bytes ("C"), the same on every server whatever its locale. */
function orderStrings(column: Column, operator: string, value: string, parameter: Parameter): string {
  const fold = lowerText(column);
  return `${fold(column.sql)} COLLATE "C" ${operator} ${fold(`${parameter(value)}::text`)} COLLATE "C"`;
}

/** `text` compares lower-cased, `exact` as it is. */
function lowerText(column: Column): (sql: string) => string {
  return (sql) => (column.kind === 'text' ? `lower(${sql})` : sql);
}

/** A value in a LIKE pattern matches itself only: its `%`, `_` and `\` (LIKE's escape) escaped. */
function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (character) => `\\${character}`);
}
