import type {
  ComparisonOperator,
  DirectoryFilter,
  FilterValue,
  GroupAttribute,
  MultiValuedAttribute,
  UserAttribute,
} from './directory-filter.js';
import { ScimError } from './scim-error.js';
import { parseFilterSyntax, type FilterSyntax } from './scim-filter-syntax.js';
import { ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, splitSchema, USER_SCHEMA } from './scim-schemas.js';

type ValueType = 'string' | 'boolean' | 'dateTime';

interface Searchable<A extends string> {
  attribute: A;
  type: ValueType;
  /** The schema whose URN may qualify the name: the core one, or the enterprise extension. */
  schema: string;
}

/** The operators each type allows (RFC 7644 3.4.2.2: gt/ge/lt/le on a boolean "SHALL" fail with invalidFilter). */
const operatorsOf: Record<ValueType, ReadonlySet<ComparisonOperator>> = {
  string: new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']),
  boolean: new Set(['eq', 'ne']),
  dateTime: new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']),
};

function table<A extends string>(entries: Array<[A, ValueType, string?]>, core: string): Map<string, Searchable<A>> {
  return new Map(
    entries.map(([attribute, type, schema]) => [attribute.toLowerCase(), { attribute, type, schema: schema ?? core }]),
  );
}

const userAttributes = table<UserAttribute>(
  [
    ['id', 'string'],
    ['externalId', 'string'],
    ['userName', 'string'],
    ['displayName', 'string'],
    ['active', 'boolean'],
    ['title', 'string'],
    ['name.givenName', 'string'],
    ['name.familyName', 'string'],
    ['name.formatted', 'string'],
    ['emails.value', 'string'],
    ['emails.type', 'string'],
    ['emails.primary', 'boolean'],
    ['department', 'string', ENTERPRISE_USER_SCHEMA],
    ['employeeNumber', 'string', ENTERPRISE_USER_SCHEMA],
    ['manager.value', 'string', ENTERPRISE_USER_SCHEMA],
    ['meta.created', 'dateTime'],
    ['meta.lastModified', 'dateTime'],
  ],
  USER_SCHEMA,
);

const groupAttributes = table<GroupAttribute>(
  [
    ['id', 'string'],
    ['externalId', 'string'],
    ['displayName', 'string'],
    ['members.value', 'string'],
    ['meta.created', 'dateTime'],
    ['meta.lastModified', 'dateTime'],
  ],
  GROUP_SCHEMA,
);

/**
 * A complex multi-valued attribute compared as a whole compares its `value` (RFC 7644
 * 3.4.2.2: `emails co "example.com"`), and is the only kind a value filter may name.
 */
const multiValued: Record<'User' | 'Group', ReadonlyMap<string, MultiValuedAttribute>> = {
  User: new Map([['emails', 'emails']]),
  Group: new Map([['members', 'members']]),
};

/**
 * A single-valued complex attribute compared as a whole compares its `value` too: Entra ID
 * checks a user's manager with `manager eq "id"` before it changes it (its SCIM tutorial).
 */
const comparedByValue: Record<'User' | 'Group', ReadonlyMap<string, string>> = {
  User: new Map([['manager', 'manager.value']]),
  Group: new Map(),
};

/**
 * Reads a SCIM filter (RFC 7644 3.4.2.2) into the directory's filter: attribute names in any
 * letter case and optionally qualified by their schema's URN, each one the directory can
 * search, and each value of its attribute's type (`active eq "True"`, as Entra ID may spell
 * a boolean, is read as true; `active eq "x"` is refused). A `has` holds its attribute's own
 * sub-attributes (`emails.type`, `members.value`). Every refusal is a `ScimError` 400
 * `invalidFilter` whose detail names no value of the filter.
 */
export function readScimFilter(text: string, resource: 'User'): DirectoryFilter<UserAttribute>;
export function readScimFilter(text: string, resource: 'Group'): DirectoryFilter<GroupAttribute>;
export function readScimFilter(text: string, resource: 'User' | 'Group'): DirectoryFilter;
export function readScimFilter(text: string, resource: 'User' | 'Group'): DirectoryFilter {
  const syntax = parseFilterSyntax(text);
  return resource === 'User'
    ? new FilterReader(userAttributes, 'User').read(syntax, undefined)
    : new FilterReader(groupAttributes, 'Group').read(syntax, undefined);
}

class FilterReader<A extends string> {
  private readonly core: string;

  constructor(
    private readonly attributes: ReadonlyMap<string, Searchable<A>>,
    private readonly resource: 'User' | 'Group',
  ) {
    this.core = resource === 'User' ? USER_SCHEMA : GROUP_SCHEMA;
  }

  /** `within`: the multi-valued attribute whose value filter this is (its sub-attributes are named bare). */
  read(syntax: FilterSyntax, within: MultiValuedAttribute | undefined): DirectoryFilter<A> {
    switch (syntax.kind) {
      case 'logical':
        return { op: syntax.op, filters: syntax.filters.map((filter) => this.read(filter, within)) };
      case 'not':
        return { op: 'not', filter: this.read(syntax.filter, within) };
      case 'present':
        return { op: 'pr', attribute: this.searchable(syntax.path, within).attribute };
      case 'compare': {
        const searchable = this.searchable(syntax.path, within);
        if (!operatorsOf[searchable.type].has(syntax.op)) {
          throw refuse(`The operator "${syntax.op}" cannot compare ${searchable.attribute}.`);
        }
        return { op: syntax.op, attribute: searchable.attribute, value: valueFor(searchable, syntax.value) };
      }
      case 'valuePath': {
        const attribute = multiValued[this.resource].get(this.qualifiedName(syntax.path).toLowerCase());
        if (attribute === undefined)
          throw refuse(`A value filter cannot be applied to ${attributeForDetail(syntax.path)}.`);
        return { op: 'has', attribute, filter: this.read(syntax.filter, attribute) };
      }
    }
  }

  private searchable(path: string, within: MultiValuedAttribute | undefined): Searchable<A> {
    let name: string;
    let schema: string | undefined;
    if (within !== undefined) {
      // Inside `emails[...]` names are the sub-attributes, bare (RFC 7644 3.4.2.2 `valFilter`).
      if (path.includes(':') || path.includes('.')) {
        throw refuse(`Inside a value filter, name ${within}'s sub-attributes alone (as "value").`);
      }
      name = `${within}.${path}`;
    } else {
      ({ schema, attribute: name } = splitSchema(path));
      const whole = multiValued[this.resource].get(name.toLowerCase());
      if (whole !== undefined) name = `${whole}.value`;
      name = comparedByValue[this.resource].get(name.toLowerCase()) ?? name;
    }
    const searchable = this.attributes.get(name.toLowerCase());
    // A qualified name must name its own schema: `id` and `meta.*` count as the core schema's.
    if (searchable === undefined || (schema !== undefined && schema !== searchable.schema.toLowerCase())) {
      throw refuse(`${this.resource}s cannot be searched by ${attributeForDetail(path)}.`);
    }
    return searchable;
  }

  private qualifiedName(path: string): string {
    const { schema, attribute } = splitSchema(path);
    if (schema !== undefined && schema !== this.core.toLowerCase()) return path;
    return attribute;
  }
}

function valueFor(searchable: Searchable<string>, value: FilterValue): FilterValue {
  const name = searchable.attribute;
  if (value === null) {
    throw refuse(`Compare ${name} with a value; to test for no value use "not (${name} pr)".`);
  }
  switch (searchable.type) {
    case 'string':
      if (typeof value !== 'string') throw refuse(`${name} compares with a quoted string.`);
      return value;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      // Entra ID writes booleans as the strings "True" and "False".
      if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
      throw refuse(`${name} compares with true or false.`);
    case 'dateTime': {
      // RFC 7643 2.3.5: an xsd:dateTime; passed on as one ISO 8601 spelling, in UTC, so a store compares it as a time.
      const time = typeof value === 'string' && dateTimePattern.test(value) ? Date.parse(value) : Number.NaN;
      if (!Number.isFinite(time)) throw refuse(`${name} compares with a date and time such as "2024-05-13T04:42:34Z".`);
      return new Date(time).toISOString();
    }
  }
}

const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/i;

/** A client's attribute name, repeated in a detail only when it is short and plainly a name. */
function attributeForDetail(path: string): string {
  return /^[A-Za-z0-9._:$-]{1,100}$/.test(path)
    ? `the attribute "${path}"`
    : 'an attribute with a long or unusual name';
}

function refuse(detail: string): ScimError {
  return new ScimError('invalidFilter', detail);
}
