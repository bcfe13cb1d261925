import type { DirectoryFilter, FilterValue } from '../../domain/directory/directory-filter.js';

/**
 * The attributes whose `eq` an index answers by the value itself, whatever the organization
 * (migrations/0003_directory-lookup-indexes.sql: each leads with its key): userName,
 * externalId and id, an e-mail (the GIN index of `email_values`), a group's displayName.
 */
const USER_KEYS: ReadonlySet<string> = new Set(['id', 'externalId', 'userName', 'emails.value']);
const GROUP_KEYS: ReadonlySet<string> = new Set(['id', 'externalId', 'displayName']);

/**
 * Whether every row a user filter matches is found through a key's index: an `eq` of a
 * key (`userName eq "..."`, `emails[value eq "..."]`), an `and` holding one, an `or` of
 * such. Such a lookup must not be offered the organization's index of pages
 * (directory-pages.ts): with stale statistics the planner would walk the organization.
 */
export function userFilterFindsByKey(filter: DirectoryFilter<string>): boolean {
  return findsByKey(filter, USER_KEYS);
}

export function groupFilterFindsByKey(filter: DirectoryFilter<string>): boolean {
  return findsByKey(filter, GROUP_KEYS);
}

/**
 * The value `attribute eq` compares with, when the filter (or a term of its top `and`)
 * is that comparison with a string: `value eq "x"` inside `emails[...]` is the e-mail the
 * GIN index finds first.
 */
export function equalityValue(filter: DirectoryFilter<string>, attribute: string): string | undefined {
  if (filter.op === 'and') {
    for (const inner of filter.filters) {
      const value = equalityValue(inner, attribute);
      if (value !== undefined) return value;
    }
    return undefined;
  }
  return filter.op === 'eq' && filter.attribute === attribute && isString(filter.value) ? filter.value : undefined;
}

function findsByKey(filter: DirectoryFilter<string>, keys: ReadonlySet<string>): boolean {
  switch (filter.op) {
    case 'and':
      return filter.filters.some((inner) => findsByKey(inner, keys));
    case 'or':
      return filter.filters.length > 0 && filter.filters.every((inner) => findsByKey(inner, keys));
    case 'has':
      return (
        filter.attribute === 'emails' &&
        keys.has('emails.value') &&
        equalityValue(filter.filter, 'emails.value') !== undefined
      );
    case 'eq':
      return keys.has(filter.attribute) && isString(filter.value);
    default:
      return false;
  }
}

function isString(value: FilterValue): value is string {
  return typeof value === 'string';
}
