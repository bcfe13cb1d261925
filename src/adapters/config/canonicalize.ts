import type { UnknownKey } from '../../domain/settings/check-settings.js';

type Schema = Record<string, unknown>;
export type Tree = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Rewrites one source's keys to the schema's spelling (operators expect case-insensitive
 * keys), turns index-keyed objects from environment variables (`Scopes__0`) into arrays,
 * and collects the keys the schema does not know instead of silently dropping them.
 */
export function canonicalize(value: unknown, schema: Schema, path: string[], unknown: UnknownKey[]): unknown {
  if (schema.type === 'array' && isPlainObject(value) && Object.keys(value).every((k) => /^\d+$/.test(k))) {
    const items = Object.entries(value)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([, item]) => item);
    return canonicalize(items, schema, path, unknown);
  }
  if (schema.type === 'array' && Array.isArray(value)) {
    const itemSchema = (schema.items ?? {}) as Schema;
    return value.map((item, index) => canonicalize(item, itemSchema, [...path, String(index)], unknown));
  }
  if (schema.type !== 'object' || !isPlainObject(value)) return value;

  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const known = Object.keys(properties);
  const freeForm = isPlainObject(schema.additionalProperties) ? (schema.additionalProperties as Schema) : undefined;
  const result: Tree = {};
  for (const [key, child] of Object.entries(value)) {
    const canonical = known.find((name) => name.toLowerCase() === key.toLowerCase());
    if (canonical) {
      // `Authentication` and `authentication` may both appear in one source: merge, do not overwrite.
      const value = canonicalize(child, properties[canonical] ?? {}, [...path, canonical], unknown);
      const existing = result[canonical];
      result[canonical] = isPlainObject(existing) && isPlainObject(value) ? deepMerge(existing, value) : value;
    } else if (freeForm) result[key] = canonicalize(child, freeForm, [...path, key], unknown);
    else unknown.push({ path: [...path, key], siblings: known });
  }
  return result;
}

/** Later sources win; objects merge key by key, arrays and scalars are replaced whole. */
export function deepMerge(base: Tree, override: Tree): Tree {
  const result: Tree = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = result[key];
    result[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return result;
}
