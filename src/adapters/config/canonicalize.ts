import type { UnknownKey } from '../../domain/settings/check-settings.js';

type Schema = Record<string, unknown>;
export type Tree = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What canonicalizing one source found wrong with its keys. */
export interface KeyFindings {
  /** Keys the schema does not know. */
  unknown: UnknownKey[];
  /** Paths set more than once in one source under spellings that differ only in letter case. */
  duplicates: string[][];
}

/**
 * Rewrites one source's keys to the schema's spelling (operators expect case-insensitive
 * keys), turns index-keyed objects from environment variables (`Scopes__0`) into arrays,
 * and collects the keys the schema does not know instead of silently dropping them. One
 * key set twice in one source under two spellings (`Enabled` and `ENABLED`) is collected
 * too: which one wins would depend on the order variables happen to be listed in.
 */
export function canonicalize(value: unknown, schema: Schema, path: string[], findings: KeyFindings): unknown {
  if (schema.type === 'array' && isPlainObject(value) && Object.keys(value).every((k) => /^\d+$/.test(k))) {
    const items = Object.entries(value)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([, item]) => item);
    return canonicalize(items, schema, path, findings);
  }
  if (schema.type === 'array' && Array.isArray(value)) {
    const itemSchema = (schema.items ?? {}) as Schema;
    return value.map((item, index) => canonicalize(item, itemSchema, [...path, String(index)], findings));
  }
  if (schema.type !== 'object' || !isPlainObject(value)) return value;

  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const { known, spellings } = keysOf(schema, properties);
  const freeForm = isPlainObject(schema.additionalProperties) ? (schema.additionalProperties as Schema) : undefined;
  const result: Tree = {};
  for (const [key, child] of Object.entries(value)) {
    const canonical = spellings.get(key.toLowerCase());
    if (canonical) {
      const value = canonicalize(child, properties[canonical] ?? {}, [...path, canonical], findings);
      const existing = result[canonical];
      result[canonical] =
        existing === undefined ? value : mergeSpellings(existing, value, [...path, canonical], findings.duplicates);
    } else if (freeForm) result[key] = canonicalize(child, freeForm, [...path, key], findings);
    else findings.unknown.push({ path: [...path, key], siblings: [...known] });
  }
  return result;
}

const keysBySchema = new WeakMap<Schema, SchemaKeys>();

interface SchemaKeys {
  /** The schema's keys, as spelled there. */
  known: readonly string[];
  /** The same by their lower-case spelling. */
  spellings: ReadonlyMap<string, string>;
}

/**
 * A schema object's keys, and the same by their lower-case spelling, made once per schema
 * object: a catalog of ten thousand connections canonicalizes ten thousand sections
 * against one schema, whose keys are the same every time.
 */
function keysOf(schema: Schema, properties: Record<string, Schema>): SchemaKeys {
  let keys = keysBySchema.get(schema);
  if (!keys) {
    const known = Object.keys(properties);
    const spellings = new Map<string, string>();
    for (const name of known) if (!spellings.has(name.toLowerCase())) spellings.set(name.toLowerCase(), name);
    keys = { known, spellings };
    keysBySchema.set(schema, keys);
  }
  return keys;
}

/**
 * `Authentication__Enabled` and `AUTHENTICATION__DefaultScheme` name different keys under
 * two spellings of one section: their children merge. Where both spellings reach the same
 * key, that key is a duplicate.
 */
function mergeSpellings(first: unknown, second: unknown, path: string[], duplicates: string[][]): unknown {
  if (!isPlainObject(first) || !isPlainObject(second)) {
    duplicates.push(path);
    return second;
  }
  const merged: Tree = { ...first };
  for (const [key, value] of Object.entries(second)) {
    merged[key] = key in merged ? mergeSpellings(merged[key], value, [...path, key], duplicates) : value;
  }
  return merged;
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
