import type { EnterpriseAttributes, MultiValue, PersonName, UserAttributes } from './directory-resources.js';
import { ScimError } from './scim-error.js';
import type { Json, JsonObject } from './scim-json.js';
import { ENTERPRISE_USER_SCHEMA } from './scim-schemas.js';

/*
 * A User's typed attributes from JSON already read against `userSchema` (scim-json.ts), and
 * the rules a whole User meets: read from a POST or PUT body, and again after a PATCH.
 */

/** Typed attributes from JSON already read against `userSchema`; the rules a whole User must meet. */
export function userFromJson(json: JsonObject): UserAttributes {
  const userName = text(json, 'userName');
  if (userName === undefined || userName.trim() === '') throw new ScimError('invalidValue', 'userName is required.');
  const user: UserAttributes = { userName, active: flag(json, 'active') ?? true };
  for (const key of userStrings) {
    const value = text(json, key);
    if (value !== undefined) user[key] = value;
  }
  const name = object(json, 'name');
  if (name !== undefined) {
    const personName: PersonName = {};
    for (const key of nameStrings) {
      const value = text(name, key);
      if (value !== undefined) personName[key] = value;
    }
    user.name = personName;
  }
  const emails = multiValues(json, 'emails');
  if (emails !== undefined) user.emails = emails;
  const phoneNumbers = multiValues(json, 'phoneNumbers');
  if (phoneNumbers !== undefined) user.phoneNumbers = phoneNumbers;
  const extension = object(json, ENTERPRISE_USER_SCHEMA);
  if (extension !== undefined) user.enterprise = enterpriseFrom(extension);
  return user;
}

type UserString =
  'externalId' | 'displayName' | 'nickName' | 'title' | 'userType' | 'preferredLanguage' | 'locale' | 'timezone';
const userStrings: readonly UserString[] = [
  'externalId',
  'displayName',
  'nickName',
  'title',
  'userType',
  'preferredLanguage',
  'locale',
  'timezone',
];
const nameStrings: ReadonlyArray<keyof PersonName> = [
  'formatted',
  'familyName',
  'givenName',
  'middleName',
  'honorificPrefix',
  'honorificSuffix',
];
const enterpriseStrings: ReadonlyArray<Exclude<keyof EnterpriseAttributes, 'manager'>> = [
  'employeeNumber',
  'costCenter',
  'organization',
  'division',
  'department',
];

function enterpriseFrom(json: JsonObject): EnterpriseAttributes {
  const enterprise: EnterpriseAttributes = {};
  for (const key of enterpriseStrings) {
    const value = text(json, key);
    if (value !== undefined) enterprise[key] = value;
  }
  const manager = object(json, 'manager');
  if (manager !== undefined) {
    enterprise.manager = {};
    const value = text(manager, 'value');
    if (value !== undefined) enterprise.manager.value = value;
    const displayName = text(manager, 'displayName');
    if (displayName !== undefined) enterprise.manager.displayName = displayName;
  }
  return enterprise;
}

/** RFC 7643 2.4: every value has a `value`, and `primary` is true for one value at most. */
function multiValues(json: JsonObject, key: 'emails' | 'phoneNumbers'): MultiValue[] | undefined {
  const elements = list(json, key);
  if (elements.length === 0) return undefined;
  const values = elements.map((element): MultiValue => {
    const value = text(element, 'value');
    if (value === undefined) throw new ScimError('invalidValue', `Each of ${key} needs a value.`);
    const read: MultiValue = { value };
    const type = text(element, 'type');
    if (type !== undefined) read.type = type;
    const primary = flag(element, 'primary');
    if (primary !== undefined) read.primary = primary;
    const display = text(element, 'display');
    if (display !== undefined) read.display = display;
    return read;
  });
  if (values.filter((value) => value.primary === true).length > 1) {
    throw new ScimError('invalidValue', `Only one of ${key} may be primary.`);
  }
  return values;
}

export function text(json: JsonObject, key: string): string | undefined {
  const value = json[key];
  return typeof value === 'string' ? value : undefined;
}

function flag(json: JsonObject, key: string): boolean | undefined {
  const value = json[key];
  return typeof value === 'boolean' ? value : undefined;
}

function object(json: JsonObject, key: string): JsonObject | undefined {
  const value = json[key];
  return isJsonObject(value) ? value : undefined;
}

export function list(json: JsonObject, key: string): JsonObject[] {
  const value = json[key];
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

function isJsonObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
