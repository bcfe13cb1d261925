import type {
  DirectoryGroup,
  DirectoryUser,
  GroupAttributes,
  GroupMember,
  MultiValue,
  UserAttributes,
} from './directory-resources.js';
import { ScimError } from './scim-error.js';
import { isRecord, readComplex, type JsonObject } from './scim-json.js';
import { ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, groupSchema, USER_SCHEMA, userSchema } from './scim-schemas.js';
import { list, text, userFromJson } from './scim-user-attributes.js';

export { projectAttributes } from './scim-projection.js';

/**
 * Reads a User as a client sends it (POST, PUT; RFC 7643 4.1): the attributes of
 * `userSchema` (scim-schemas.ts says which are kept), names in any letter case, the
 * enterprise extension under its URN; `id`, `meta`, `groups` and every other attribute
 * ignored. `userName` is required; `active` is true unless given (Entra ID's "False" counts).
 * Refusals are `ScimError` 400 (`invalidSyntax` for a body that is no object, `invalidValue`
 * for an attribute).
 */
export function readUser(body: unknown): UserAttributes {
  return userFromJson(readComplex(userSchema, bodyObject(body), ''));
}

/**
 * Reads a Group as a client sends it (POST, PUT; RFC 7643 4.2): `displayName` (required),
 * `externalId`, and the members' ids, each once, in the order given.
 */
export function readGroup(body: unknown): { attributes: GroupAttributes; members: string[] } {
  const json = readComplex(groupSchema, bodyObject(body), '');
  const displayName = text(json, 'displayName');
  if (displayName === undefined || displayName.trim() === '') {
    throw new ScimError('invalidValue', 'displayName is required.');
  }
  const attributes: GroupAttributes = { displayName };
  const externalId = text(json, 'externalId');
  if (externalId !== undefined) attributes.externalId = externalId;
  const members = new Set<string>();
  for (const member of list(json, 'members')) {
    const value = text(member, 'value');
    if (value === undefined) throw new ScimError('invalidValue', 'Each of members needs a value (the user id).');
    members.add(value);
  }
  return { attributes, members: [...members] };
}

function bodyObject(body: unknown): Record<string, unknown> {
  if (!isRecord(body)) throw new ScimError('invalidSyntax', 'The body must be a JSON object.');
  return body;
}

/**
 * A user as SCIM returns it (RFC 7643 4.1, 3.1): the enterprise extension under its URN and
 * named in `schemas` when the user has any of it; `meta.version` is a weak ETag of the
 * store's version (RFC 7644 3.14), the same the `ETag` header carries.
 */
export function userResource(user: DirectoryUser, location: string): JsonObject {
  const attributes = userJson(user.attributes);
  const schemas = ENTERPRISE_USER_SCHEMA in attributes ? [USER_SCHEMA, ENTERPRISE_USER_SCHEMA] : [USER_SCHEMA];
  return { schemas, id: user.id, ...attributes, meta: meta('User', user, location) };
}

/**
 * A group as SCIM returns it (RFC 7643 4.2). `members` undefined leaves the attribute out,
 * for a caller that did not load them because the client excluded them (Entra ID asks with
 * `excludedAttributes=members`).
 */
export function groupResource(group: DirectoryGroup, members: GroupMember[] | undefined, location: string): JsonObject {
  const resource: JsonObject = { schemas: [GROUP_SCHEMA], id: group.id, displayName: group.attributes.displayName };
  if (group.attributes.externalId !== undefined) resource.externalId = group.attributes.externalId;
  if (members !== undefined) {
    resource.members = members.map((member): JsonObject =>
      member.display === undefined ? { value: member.value } : { value: member.value, display: member.display },
    );
  }
  resource.meta = meta('Group', group, location);
  return resource;
}

/** The weak ETag of a version, as `meta.version` and the `ETag` header write it. */
export function versionTag(version: number): string {
  return `W/"${version}"`;
}

/** A user's attributes as a SCIM body holds them (no `id`, `meta`, `schemas`): what PATCH works on. */
export function userJson(user: UserAttributes): JsonObject {
  const json: JsonObject = { userName: user.userName };
  copy(json, 'externalId', user.externalId);
  if (user.name !== undefined) json.name = { ...user.name };
  copy(json, 'displayName', user.displayName);
  copy(json, 'nickName', user.nickName);
  copy(json, 'title', user.title);
  copy(json, 'userType', user.userType);
  copy(json, 'preferredLanguage', user.preferredLanguage);
  copy(json, 'locale', user.locale);
  copy(json, 'timezone', user.timezone);
  json.active = user.active;
  if (user.emails !== undefined) json.emails = user.emails.map(multiValueJson);
  if (user.phoneNumbers !== undefined) json.phoneNumbers = user.phoneNumbers.map(multiValueJson);
  if (user.enterprise !== undefined) {
    const { manager, ...rest } = user.enterprise;
    const extension: JsonObject = { ...rest };
    if (manager !== undefined) extension.manager = { ...manager };
    json[ENTERPRISE_USER_SCHEMA] = extension;
  }
  return json;
}

function multiValueJson(value: MultiValue): JsonObject {
  return { ...value };
}

function copy(json: JsonObject, key: string, value: string | undefined): void {
  if (value !== undefined) json[key] = value;
}

function meta(
  resourceType: 'User' | 'Group',
  resource: { version: number; created: number; lastModified: number },
  location: string,
): JsonObject {
  return {
    resourceType,
    created: new Date(resource.created).toISOString(),
    lastModified: new Date(resource.lastModified).toISOString(),
    location,
    version: versionTag(resource.version),
  };
}
