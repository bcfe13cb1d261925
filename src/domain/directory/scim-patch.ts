import { ScimError } from './scim-error.js';
import { parsePathSyntax, type PathSyntax } from './scim-filter-syntax.js';
import { isRecord } from './scim-json.js';
import { PATCH_OP_SCHEMA } from './scim-schemas.js';

export { applyUserPatch } from './scim-user-patch.js';
export { groupPatch, type GroupPatch } from './scim-group-patch.js';

/** One operation of a PATCH request (RFC 7644 3.5.2), its path read but not yet resolved against a schema. */
export interface PatchOperation {
  op: 'add' | 'remove' | 'replace';
  /** Absent: the operation's target is the resource itself, and `value` holds attributes. */
  path?: PathSyntax;
  /** The JSON value as sent (undefined when none); read against its attribute's schema when applied. */
  value?: unknown;
}

/** Entra ID sends at most a few dozen operations, a group push batches members inside one. */
export const MAX_PATCH_OPERATIONS = 1000;

/**
 * Reads a PATCH body (RFC 7644 3.5.2): `schemas` holding the PatchOp URN, 1 to 1,000
 * `Operations`, each an `op` of add, remove or replace in any letter case (Entra ID sends
 * "Replace", "Add"), a `path` read by the filter grammar, a `value`. Member names are
 * matched without regard to letter case. A remove without a path is 400 `noTarget`
 * (RFC 7644 3.5.2.2); more than 1,000 operations 413; other shapes 400 `invalidSyntax`,
 * `invalidPath` or `invalidValue`.
 */
export function readPatch(body: unknown): PatchOperation[] {
  if (!isRecord(body)) throw new ScimError('invalidSyntax', 'The body must be a JSON object.');
  const members = membersOf(body, 'The body', ['schemas', 'operations']);
  const schemas = members.get('schemas');
  if (
    !Array.isArray(schemas) ||
    !schemas.some((schema) => typeof schema === 'string' && schema.toLowerCase() === PATCH_OP_SCHEMA.toLowerCase())
  ) {
    throw new ScimError('invalidSyntax', `schemas must hold "${PATCH_OP_SCHEMA}".`);
  }
  const operations = members.get('operations');
  if (!Array.isArray(operations) || operations.length === 0) {
    throw new ScimError('invalidSyntax', 'Operations must be a list of one operation or more.');
  }
  if (operations.length > MAX_PATCH_OPERATIONS) {
    throw new ScimError(413, `A PATCH holds at most ${MAX_PATCH_OPERATIONS} operations.`);
  }
  return operations.map(readOperation);
}

function readOperation(operation: unknown, index: number): PatchOperation {
  const label = `Operation ${index + 1}`;
  if (!isRecord(operation)) throw new ScimError('invalidSyntax', `${label} must be a JSON object.`);
  const members = membersOf(operation, label, ['op', 'path', 'value']);
  const opText = members.get('op');
  const op = typeof opText === 'string' ? opText.toLowerCase() : undefined;
  if (op !== 'add' && op !== 'remove' && op !== 'replace') {
    throw new ScimError('invalidSyntax', `${label}: op must be add, remove or replace.`);
  }
  const read: PatchOperation = { op };
  const path = members.get('path');
  if (typeof path === 'string') read.path = parsePathSyntax(path);
  else if (path !== undefined && path !== null) throw new ScimError('invalidPath', `${label}: path must be a string.`);
  // RFC 7644 3.5.2.2: "If "path" is unspecified, the operation fails ... noTarget".
  if (op === 'remove' && read.path === undefined) {
    throw new ScimError('noTarget', `${label}: a remove needs a path.`);
  }
  const value = members.get('value');
  if (value !== undefined) read.value = value;
  else if (op !== 'remove') throw new ScimError('invalidValue', `${label}: an ${op} needs a value.`);
  return read;
}

/** The members named, by lower-case name (any spelling matches); one given twice in two spellings is refused. */
function membersOf(object: Record<string, unknown>, label: string, names: readonly string[]): Map<string, unknown> {
  const members = new Map<string, unknown>();
  for (const [key, value] of Object.entries(object)) {
    const name = key.toLowerCase();
    if (!names.includes(name)) continue;
    if (members.has(name)) throw new ScimError('invalidSyntax', `${label} gives "${name}" more than once.`);
    members.set(name, value);
  }
  return members;
}
