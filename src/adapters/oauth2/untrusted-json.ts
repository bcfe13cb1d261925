import { GatehouseError } from '../../domain/errors.js';

/**
 * JSON from a vendor (a user profile, a list of emails), read one field at a time with
 * `typeof` (ARCHITECTURE.md: never `as`). A field of the wrong type is a malformed answer,
 * never coerced: `"id": "583231"` where a number is documented fails like a missing id.
 * Messages name the field, never its value.
 */
export type JsonObject = Readonly<Record<string, unknown>>;

/** The value as a JSON object (not null, not an array), or a malformed answer. */
export function jsonObject(value: unknown, what: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed(what, 'is not an object');
  return Object.fromEntries(Object.entries(value));
}

/** The value as a JSON array, or a malformed answer. */
export function jsonArray(value: unknown, what: string): readonly unknown[] {
  if (!Array.isArray(value)) throw malformed(what, 'is not an array');
  return value;
}

/** A string field that must be present and non-empty. */
export function requiredString(object: JsonObject, name: string, what: string): string {
  const value = object[name];
  if (typeof value !== 'string' || value === '') throw malformed(what, `has no string "${name}"`);
  return value;
}

/** A string field that may be absent or null (the vendor documents it as optional or nullable). */
export function optionalString(object: JsonObject, name: string, what: string): string | undefined {
  const value = object[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw malformed(what, `has a "${name}" that is not a string`);
  return value;
}

/** A whole number field that must be present (a numeric id: never a string of digits). */
export function requiredInteger(object: JsonObject, name: string, what: string): number {
  const value = object[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw malformed(what, `has no whole number "${name}"`);
  return value;
}

/** A boolean field that must be present. */
export function requiredBoolean(object: JsonObject, name: string, what: string): boolean {
  const value = object[name];
  if (typeof value !== 'boolean') throw malformed(what, `has no boolean "${name}"`);
  return value;
}

/** The vendor's user information could not be used (a 502 for the person signing in, the detail for the log). */
export function malformed(what: string, problem: string): GatehouseError {
  return new GatehouseError('idp.userinfo_failed', `The identity provider's ${what} ${problem}.`);
}

/**
 * The string fields of a JSON object as claims: `required` must be a non-empty string,
 * each of `optional` is kept when it is one (null and absent are skipped).
 */
export function stringFieldClaims(
  json: unknown,
  what: string,
  required: string,
  optional: readonly string[],
): Record<string, string> {
  const object = jsonObject(json, what);
  const claims: Record<string, string> = { [required]: requiredString(object, required, what) };
  for (const name of optional) {
    const value = optionalString(object, name, what);
    if (value !== undefined) claims[name] = value;
  }
  return claims;
}
