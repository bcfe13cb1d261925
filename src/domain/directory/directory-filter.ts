/**
 * A SCIM filter (RFC 7644 3.4.2.2) once read and checked: every attribute is one the
 * directory knows and can search (`UserAttribute`, `GroupAttribute`), spelled the one way
 * the stores translate, so a store never sees a client's spelling or an attribute it
 * cannot index. Read from the client's text by `readScimFilter` (scim-filter.ts).
 */
export type DirectoryFilter<A extends string = UserAttribute | GroupAttribute> =
  | { op: 'and' | 'or'; filters: DirectoryFilter<A>[] }
  | { op: 'not'; filter: DirectoryFilter<A> }
  | { op: 'pr'; attribute: A }
  | { op: ComparisonOperator; attribute: A; value: FilterValue }
  /**
   * A value filter on a multi-valued attribute (`emails[type eq "work" and value co "@x"]`,
   * `members[value eq "2819c223"]`): one element must match the whole of `filter`, whose
   * attributes are that attribute's own (`emails.type`, `emails.value`, `members.value`).
   */
  | { op: 'has'; attribute: MultiValuedAttribute; filter: DirectoryFilter<A> };

export type ComparisonOperator = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';

/** A comparison's value as JSON gave it (RFC 7644: a string, a boolean, a number or null). */
export type FilterValue = string | number | boolean | null;

/**
 * The user attributes a filter may name, as the SCIM schema spells them (sub-attributes
 * with a dot; the enterprise extension's by their short name). Strings compare without
 * regard to letter case except `id` and `externalId`, which are case-exact (RFC 7643 4.1).
 */
export type UserAttribute =
  | 'id'
  | 'externalId'
  | 'userName'
  | 'displayName'
  | 'active'
  | 'title'
  | 'name.givenName'
  | 'name.familyName'
  | 'name.formatted'
  | 'emails.value'
  | 'emails.type'
  | 'emails.primary'
  | 'department'
  | 'employeeNumber'
  | 'manager.value'
  | 'meta.created'
  | 'meta.lastModified';

/** The group attributes a filter may name. */
export type GroupAttribute =
  'id' | 'externalId' | 'displayName' | 'members.value' | 'meta.created' | 'meta.lastModified';

/** The multi-valued attributes a value filter (`has`) may name. */
export type MultiValuedAttribute = 'emails' | 'members';
