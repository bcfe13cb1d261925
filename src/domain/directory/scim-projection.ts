import { ScimError } from './scim-error.js';
import { isRecord } from './scim-json.js';
import { GROUP_SCHEMA, splitSchema, USER_SCHEMA } from './scim-schemas.js';

/** Returned whatever the client asks (RFC 7643 3.1 `id` "always"; the resource's schemas and meta with it). */
const alwaysReturned: ReadonlySet<string> = new Set(['id', 'schemas', 'meta']);
const coreSchemas: ReadonlySet<string> = new Set([USER_SCHEMA.toLowerCase(), GROUP_SCHEMA.toLowerCase()]);
const MAX_LIST_LENGTH = 1024;

/** Which attributes a list names: a key's own `true` takes all of it, a map some of its sub-attributes. */
type Selection = Map<string, Selection | true>;

/**
 * The resource with only the attributes asked for (RFC 7644 3.4.2.5): `attributes` keeps
 * those named, `excludedAttributes` drops those named; `id`, `schemas` and `meta` stay either
 * way. Names are compared without regard to letter case and may be sub-attributes
 * (`name.givenName`, `emails.value`) or qualified by a schema URN
 * (`urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department`); a name the
 * resource does not hold selects nothing. Both lists given: the first, then the second.
 */
export function projectAttributes(
  resource: Record<string, unknown>,
  lists: { attributes?: string; excludedAttributes?: string },
): Record<string, unknown> {
  let projected = resource;
  if (lists.attributes !== undefined) {
    const selection = selectionOf(resource, lists.attributes, 'attributes');
    projected = {};
    for (const [key, value] of Object.entries(resource)) {
      const selected = selection.get(key.toLowerCase());
      if (alwaysReturned.has(key)) projected[key] = value;
      else if (selected !== undefined) {
        const kept = keep(value, selected);
        if (kept !== undefined) projected[key] = kept;
      }
    }
  }
  if (lists.excludedAttributes !== undefined) {
    const selection = selectionOf(resource, lists.excludedAttributes, 'excludedAttributes');
    for (const key of alwaysReturned) selection.delete(key);
    projected = drop(projected, selection);
  }
  return projected;
}

function selectionOf(resource: Record<string, unknown>, list: string, parameter: string): Selection {
  if (list.length > MAX_LIST_LENGTH) {
    throw new ScimError('invalidValue', `${parameter} is longer than ${MAX_LIST_LENGTH} characters.`);
  }
  // The extension URNs the resource holds as keys (the enterprise User's), longest first.
  const extensions = Object.keys(resource)
    .filter((key) => key.toLowerCase().startsWith('urn:'))
    .sort((a, b) => b.length - a.length);
  const selection: Selection = new Map();
  for (const item of list.split(',')) {
    const path = pathOf(item.trim(), extensions);
    if (path !== undefined) add(selection, path);
  }
  return selection;
}

/** Lower-case keys from the resource's top level down; undefined for a name of another schema. */
function pathOf(item: string, extensions: string[]): string[] | undefined {
  if (item === '') return undefined;
  const lower = item.toLowerCase();
  for (const extension of extensions) {
    const urn = extension.toLowerCase();
    if (lower === urn) return [urn];
    if (lower.startsWith(`${urn}:`)) return [urn, ...lower.slice(urn.length + 1).split('.')];
  }
  const { schema, attribute } = splitSchema(lower);
  if (schema !== undefined && !coreSchemas.has(schema)) return undefined;
  return attribute.split('.');
}

function add(selection: Selection, path: string[]): void {
  const [first, ...rest] = path;
  if (first === undefined) return;
  const current = selection.get(first);
  if (current === true) return;
  if (rest.length === 0) {
    selection.set(first, true);
    return;
  }
  const below: Selection = current ?? new Map();
  selection.set(first, below);
  add(below, rest);
}

function keep(value: unknown, selected: Selection | true): unknown {
  if (selected === true) return value;
  if (Array.isArray(value)) {
    const kept = value.map((element) => keep(element, selected)).filter((element) => element !== undefined);
    return kept.length === 0 ? undefined : kept;
  }
  if (!isRecord(value)) return undefined;
  const kept: Record<string, unknown> = {};
  for (const [key, sub] of Object.entries(value)) {
    const subSelected = selected.get(key.toLowerCase());
    const subKept = subSelected === undefined ? undefined : keep(sub, subSelected);
    if (subKept !== undefined) kept[key] = subKept;
  }
  return Object.keys(kept).length === 0 ? undefined : kept;
}

function drop(value: Record<string, unknown>, selection: Selection): Record<string, unknown> {
  const left: Record<string, unknown> = {};
  for (const [key, sub] of Object.entries(value)) {
    const dropped = selection.get(key.toLowerCase());
    if (dropped === true) continue;
    left[key] = dropped === undefined ? sub : dropWithin(sub, dropped);
  }
  return left;
}

function dropWithin(value: unknown, selection: Selection): unknown {
  if (Array.isArray(value)) return value.map((element) => dropWithin(element, selection));
  return isRecord(value) ? drop(value, selection) : value;
}
