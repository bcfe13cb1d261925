import { ScimError } from './scim-error.js';
import { ENTERPRISE_USER_SCHEMA, MAX_STRING_LENGTH, type AttributeSchema, type ComplexSchema } from './scim-schemas.js';

/**
 * Untrusted JSON read against a schema (scim-schemas.ts) into JSON whose keys are the
 * schema's own spelling: names matched without regard to letter case (RFC 7643 2.1),
 * unknown names dropped, `null` and `[]` read as unassigned (RFC 7643 2.5), booleans also
 * as the strings "True" and "False" in any case (Entra ID sends them so), every string and
 * list within its limit. Only the schema's names become keys, so no client key (such as
 * `__proto__`) ever reaches an object. Refusals are 400 `invalidValue` (a value of the wrong
 * type or size) or `invalidSyntax` (one attribute given twice), naming attributes by the
 * schema's spelling and never repeating a value.
 */
export type Json = string | number | boolean | null | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const lookups = new WeakMap<ComplexSchema, Map<string, string>>();

/** The canonical spelling of `name` among the schema's sub-attributes, if it is one. */
export function canonicalName(schema: ComplexSchema, name: string): string | undefined {
  let lookup = lookups.get(schema);
  if (lookup === undefined) {
    lookup = new Map(Object.keys(schema).map((key) => [key.toLowerCase(), key]));
    lookups.set(schema, lookup);
  }
  return lookup.get(name.toLowerCase());
}

/** An object's attributes (a body's, a complex attribute's); `label` names it in a refusal. */
export function readComplex(schema: ComplexSchema, value: unknown, label: string): JsonObject {
  if (!isRecord(value)) throw new ScimError('invalidValue', `${label} must be a JSON object.`);
  const read: JsonObject = {};
  const seen = new Set<string>();
  for (const key of Object.keys(value)) {
    const name = canonicalName(schema, key);
    if (name === undefined) continue;
    if (seen.has(name)) throw new ScimError('invalidSyntax', `${qualified(label, name)} is given more than once.`);
    seen.add(name);
    const attribute = schema[name];
    const attributeValue = attribute && readAttribute(attribute, value[key], qualified(label, name));
    if (attributeValue !== undefined) read[name] = attributeValue;
  }
  return read;
}

/** One attribute's value, or undefined for unassigned. */
export function readAttribute(schema: AttributeSchema, value: unknown, label: string): Json | undefined {
  if (value === null || value === undefined) return undefined;
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string') throw new ScimError('invalidValue', `${label} must be a string.`);
      if (value.length > MAX_STRING_LENGTH) {
        throw new ScimError('invalidValue', `${label} is longer than ${MAX_STRING_LENGTH} characters.`);
      }
      return value;
    case 'boolean': {
      const flag = readBoolean(value);
      if (flag === undefined) throw new ScimError('invalidValue', `${label} must be true or false.`);
      return flag;
    }
    case 'complex': {
      if (schema.multiValued === undefined) {
        const read = readComplex(schema.attributes, value, label);
        return Object.keys(read).length === 0 ? undefined : read;
      }
      if (!Array.isArray(value)) throw new ScimError('invalidValue', `${label} must be a JSON array.`);
      if (value.length > schema.multiValued.maxValues) {
        throw new ScimError('invalidValue', `${label} holds more than ${schema.multiValued.maxValues} values.`);
      }
      const values: JsonObject[] = [];
      for (const element of value) {
        if (element === null) continue;
        values.push(readComplex(schema.attributes, element, `Each value of ${label}`));
      }
      return values.length === 0 ? undefined : values;
    }
  }
}

/** true and false, or Entra ID's "True" and "False" (any letter case). */
export function readBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(?:true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  return undefined;
}

/** A sub-attribute's name as SCIM writes it: `name.givenName`, `urn:...:enterprise:2.0:User:department`. */
function qualified(label: string, name: string): string {
  if (label === '') return name;
  return `${label}${label === ENTERPRISE_USER_SCHEMA ? ':' : '.'}${name}`;
}
