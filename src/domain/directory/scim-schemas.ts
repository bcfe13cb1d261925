/** The schema URNs Gatehouse serves (RFC 7643 8.7.1, 4.3). */
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * An attribute path split from the schema URN that may qualify it (RFC 7644 3.10:
 * `urn:ietf:params:scim:schemas:core:2.0:User:name.givenName`). Attribute names hold no
 * colon, so the URN is whatever comes before the last one. URNs compare without regard to
 * letter case, as attribute names do (RFC 7643 2.1).
 */
export function splitSchema(path: string): { schema: string | undefined; attribute: string } {
  const colon = path.lastIndexOf(':');
  if (colon === -1) return { schema: undefined, attribute: path };
  return { schema: path.slice(0, colon).toLowerCase(), attribute: path.slice(colon + 1) };
}

/** How an attribute is read (RFC 7643 2.2-2.4): its type, and for a complex one its sub-attributes. */
export type AttributeSchema =
  | { type: 'string' }
  | { type: 'boolean' }
  | { type: 'complex'; attributes: ComplexSchema; multiValued?: { maxValues: number } };

/** Sub-attributes by their canonical spelling; a client's spelling is matched without regard to letter case. */
export interface ComplexSchema {
  readonly [name: string]: AttributeSchema;
}

/** Any string a client sends is refused beyond this length (names and identifiers are far shorter). */
export const MAX_STRING_LENGTH = 1024;
/** `emails`, `phoneNumbers`: a person has a handful; more is an error or an attack. */
export const MAX_MULTI_VALUES = 20;

const string: AttributeSchema = { type: 'string' };
const boolean: AttributeSchema = { type: 'boolean' };
const complex = (attributes: ComplexSchema): AttributeSchema => ({ type: 'complex', attributes });
const multiValued = (attributes: ComplexSchema, maxValues: number): AttributeSchema => ({
  type: 'complex',
  attributes,
  multiValued: { maxValues },
});

/** RFC 7643 2.4: the sub-attributes of `emails` and `phoneNumbers` that are kept. */
const multiValue: ComplexSchema = { value: string, type: string, primary: boolean, display: string };

/**
 * The User attributes Gatehouse keeps: the core User's (RFC 7643 4.1) but for passwords,
 * addresses, ims, photos, entitlements, roles, x509Certificates and profileUrl, and the
 * enterprise extension (RFC 7643 4.3) under its URN. Any other attribute is ignored, so a
 * directory may push more than Gatehouse keeps; a `password` is never kept.
 */
export const userSchema: ComplexSchema = {
  userName: string,
  externalId: string,
  active: boolean,
  displayName: string,
  nickName: string,
  title: string,
  userType: string,
  preferredLanguage: string,
  locale: string,
  timezone: string,
  name: complex({
    formatted: string,
    familyName: string,
    givenName: string,
    middleName: string,
    honorificPrefix: string,
    honorificSuffix: string,
  }),
  emails: multiValued(multiValue, MAX_MULTI_VALUES),
  phoneNumbers: multiValued(multiValue, MAX_MULTI_VALUES),
  [ENTERPRISE_USER_SCHEMA]: complex({
    employeeNumber: string,
    costCenter: string,
    organization: string,
    division: string,
    department: string,
    manager: complex({ value: string, displayName: string }),
  }),
};

/**
 * The Group attributes Gatehouse keeps (RFC 7643 4.2): members by `value` alone (their
 * `display`, `type` and `$ref` are Gatehouse's to say). A group may hold any number of
 * members; the size of the request body is what bounds them.
 */
export const groupSchema: ComplexSchema = {
  displayName: string,
  externalId: string,
  members: multiValued({ value: string }, Number.POSITIVE_INFINITY),
};

/**
 * Attributes the service provider sets (RFC 7643 3.1, 4.1.2): ignored when a client sends
 * them in a body (Okta sends `id` back in PUT bodies and in a group rename's PATCH value), a
 * `mutability` error when a PATCH path names them.
 */
export const readOnlyAttributes: Record<'User' | 'Group', ReadonlySet<string>> = {
  User: new Set(['id', 'meta', 'groups', 'schemas']),
  Group: new Set(['id', 'meta', 'schemas']),
};
