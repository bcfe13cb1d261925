import { error, keyOf, type SettingsProblem } from '../../domain/settings/problem.js';
import { isPlainObject, type Tree } from './canonicalize.js';

/** The two fields of a labelled row: the one that holds the map's key, the one that holds its value. */
interface RowFields {
  key: string;
  value: string;
}

const MAPPING: RowFields = { key: 'Source', value: 'Target' };
const CONTEXT_CLASS: RowFields = { key: 'Class', value: 'Methods' };

/**
 * The maps whose keys are names from elsewhere (claim names, SAML class URIs), with `*`
 * for a section of any name. Such a key is often a URI (`http://schemas...`): as an
 * environment variable's name it would hold `:`, `/` and `.`, which /bin/sh (dash, the
 * shell `npm start` runs on Debian and Ubuntu) drops without a word.
 */
const MAPS: readonly { path: readonly string[]; fields: RowFields }[] = [
  { path: ['Authentication', 'ClaimsTransformation', 'Mappings', '*'], fields: MAPPING },
  { path: ['Authentication', 'Connections', '*', 'ClaimMappings'], fields: MAPPING },
  // Group and role values hold dots, spaces and @ too (Entra's `Gatehouse.Admin`, a Google group's address).
  { path: ['Authentication', 'Connections', '*', 'RoleMappings'], fields: MAPPING },
  { path: ['Authentication', 'Connections', '*', 'PermissionMappings'], fields: MAPPING },
  { path: ['Authentication', 'AuthnContextClassMethods'], fields: CONTEXT_CLASS },
];

/**
 * Rewrites the labelled rows of one source's maps into plain entries:
 * `Mappings:Saml2:Email:Source=http://...` with `...:Email:Target=application:email` is
 * the entry `Mappings:Saml2:http://... = application:email`. The label only names the row
 * (letters, digits and `_` survive every shell). A row that lacks a field, has another, or
 * maps a key the same source maps already is reported, naming the row's key.
 */
export function withLabelledRows(tree: Tree, problems: SettingsProblem[]): Tree {
  let result = tree;
  for (const { path, fields } of MAPS) result = rewriteAt(result, path, [], fields, problems);
  return result;
}

function rewriteAt(
  node: Tree,
  rest: readonly string[],
  at: string[],
  fields: RowFields,
  problems: SettingsProblem[],
): Tree {
  const [segment, ...below] = rest;
  if (segment === undefined) return rowsOf(node, at, fields, problems);
  const names = segment === '*' ? Object.keys(node) : [segment];
  let copy: Tree | undefined;
  for (const name of names) {
    const child = node[name];
    if (!isPlainObject(child)) continue;
    copy ??= { ...node };
    copy[name] = rewriteAt(child, below, [...at, name], fields, problems);
  }
  return copy ?? node;
}

function rowsOf(map: Tree, at: string[], fields: RowFields, problems: SettingsProblem[]): Tree {
  const rows: Tree = {};
  const mappedBy = new Map<string, string>();
  const add = (key: string, value: unknown, from: string) => {
    const earlier = mappedBy.get(key);
    if (earlier !== undefined) {
      problems.push(
        error(keyOf(...at, from), `maps ${key}, which ${keyOf(...at, earlier)} maps too: keep one of them`),
      );
      return;
    }
    mappedBy.set(key, from);
    rows[key] = value;
  };
  for (const [name, value] of Object.entries(map)) {
    if (!isPlainObject(value)) {
      add(name, value, name);
      continue;
    }
    const row = labelledRow(value, fields);
    if (row === undefined) {
      problems.push(
        error(
          keyOf(...at, name),
          `is a labelled row: it takes exactly ${fields.key} and ${fields.value}, both set and not empty`,
        ),
      );
      continue;
    }
    add(row.key, row.value, name);
  }
  return rows;
}

/** The row's two fields (their names in any letter case, as every key); undefined unless exactly those two, as non-empty strings. */
function labelledRow(row: Tree, fields: RowFields): { key: string; value: string } | undefined {
  const byName = new Map(Object.entries(row).map(([name, value]) => [name.toLowerCase(), value]));
  const key = byName.get(fields.key.toLowerCase());
  const value = byName.get(fields.value.toLowerCase());
  if (byName.size !== 2 || typeof key !== 'string' || typeof value !== 'string') return undefined;
  if (key.trim() === '' || value.trim() === '') return undefined;
  return { key, value };
}
