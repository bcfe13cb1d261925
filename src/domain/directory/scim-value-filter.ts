import type { FilterValue } from './directory-filter.js';
import { ScimError } from './scim-error.js';
import type { FilterSyntax } from './scim-filter-syntax.js';
import { canonicalName, readAttribute, readBoolean, type JsonObject } from './scim-json.js';
import type { AttributeSchema, ComplexSchema } from './scim-schemas.js';

/**
 * A PATCH path's value filter (`emails[type eq "work"]`) tried on one value of a
 * multi-valued attribute. Sub-attributes are named bare and in any letter case; strings
 * compare without regard to case (RFC 7643 4.1.2: `emails` and `phoneNumbers` are not
 * case-exact), booleans with booleans (Entra ID's "True" counts). A filter naming what the
 * attribute does not have is 400 `invalidPath`.
 */
export function matchesValue(filter: FilterSyntax, element: JsonObject, schema: ComplexSchema): boolean {
  switch (filter.kind) {
    case 'logical':
      return filter.op === 'and'
        ? filter.filters.every((inner) => matchesValue(inner, element, schema))
        : filter.filters.some((inner) => matchesValue(inner, element, schema));
    case 'not':
      return !matchesValue(filter.filter, element, schema);
    case 'present': {
      const value = element[subAttribute(filter.path, schema).name];
      return value !== undefined && value !== null && value !== '';
    }
    case 'compare': {
      const { name, type } = subAttribute(filter.path, schema);
      return compare(filter.op, element[name], expected(filter.value, type, name));
    }
    case 'valuePath':
      throw new ScimError('invalidPath', 'A value filter cannot hold another value filter.');
  }
}

/**
 * The value an `add` creates when its filter matches none (Entra ID adds
 * `emails[type eq "work"].value` for a person without a work address): the sub-attributes
 * the filter sets with `eq`, joined by `and`. Undefined for any other filter.
 */
export function valueFromFilter(filter: FilterSyntax, schema: ComplexSchema): JsonObject | undefined {
  if (filter.kind === 'logical' && filter.op === 'and') {
    const value: JsonObject = {};
    for (const inner of filter.filters) {
      const part = valueFromFilter(inner, schema);
      if (part === undefined) return undefined;
      Object.assign(value, part);
    }
    return value;
  }
  if (filter.kind !== 'compare' || filter.op !== 'eq') return undefined;
  const { name, attribute } = subAttribute(filter.path, schema);
  const value = readAttribute(attribute, expected(filter.value, attribute.type, name), name);
  return value === undefined ? undefined : { [name]: value };
}

function subAttribute(
  path: string,
  schema: ComplexSchema,
): { name: string; type: AttributeSchema['type']; attribute: AttributeSchema } {
  const name = canonicalName(schema, path);
  const attribute = name === undefined ? undefined : schema[name];
  if (name === undefined || attribute === undefined || attribute.type === 'complex') {
    throw new ScimError('invalidPath', 'The value filter names a sub-attribute the attribute does not have.');
  }
  return { name, type: attribute.type, attribute };
}

function expected(value: FilterValue, type: AttributeSchema['type'], name: string): string | boolean {
  if (type === 'boolean') {
    const flag = readBoolean(value);
    if (flag === undefined) throw new ScimError('invalidPath', `The value filter compares ${name} with true or false.`);
    return flag;
  }
  if (typeof value !== 'string') throw new ScimError('invalidPath', `The value filter compares ${name} with a string.`);
  return value;
}

function compare(op: string, actual: unknown, wanted: string | boolean): boolean {
  if (typeof wanted === 'boolean') {
    if (op !== 'eq' && op !== 'ne') throw new ScimError('invalidPath', 'Booleans compare with eq and ne only.');
    return (actual === wanted) === (op === 'eq');
  }
  if (typeof actual !== 'string') return op === 'ne';
  const a = actual.toLowerCase();
  const b = wanted.toLowerCase();
  switch (op) {
    case 'eq':
      return a === b;
    case 'ne':
      return a !== b;
    case 'co':
      return a.includes(b);
    case 'sw':
      return a.startsWith(b);
    case 'ew':
      return a.endsWith(b);
    case 'gt':
      return a > b;
    case 'ge':
      return a >= b;
    case 'lt':
      return a < b;
    default:
      return a <= b;
  }
}
