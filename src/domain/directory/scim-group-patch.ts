import type { GroupAttributes } from './directory-resources.js';
import { ScimError } from './scim-error.js';
import { parsePathSyntax, type FilterSyntax, type PathSyntax } from './scim-filter-syntax.js';
import { isRecord, readAttribute } from './scim-json.js';
import type { PatchOperation } from './scim-patch.js';
import { GROUP_SCHEMA, readOnlyAttributes, splitSchema } from './scim-schemas.js';

/**
 * What a group PATCH changes. `attributes` holds those set; `externalId` present with the
 * value undefined means removed (so spreading it over the current attributes applies it).
 * `members` is present only when an operation touched them: a `replace` with the whole list,
 * or the ids to `add` and `remove` (never one id in both).
 */
export interface GroupPatch {
  attributes?: Partial<GroupAttributes>;
  members?: { replace: string[] } | { add: string[]; remove: string[] };
}

/**
 * A group PATCH (RFC 7644 3.5.2), worked out without the group's current members, so a
 * directory pushing a group of 100,000 people costs the operations' size, not the group's:
 * each member id is one Set operation, and later operations win over earlier ones.
 *
 * - `displayName`, `externalId`: add and replace set them (also as keys of a path-less
 *   value, as Okta renames: `{"op":"replace","value":{"id":"...","displayName":"..."}}`,
 *   whose `id` is ignored); remove takes `externalId` away; `displayName` is required.
 * - `members`: add with a list of `{ "value": id }`; remove by `members[value eq "id"]`
 *   (several joined by `or`), or by path `members` with a list of values (Entra ID's batches),
 *   or every member with path `members` and no value; replace with the whole list.
 * - A filter on members other than `value eq` cannot be worked out without the members:
 *   400 `invalidPath`. `id`, `meta`, `schemas` by path: 400 `mutability`. Other attributes
 *   are ignored.
 */
export function groupPatch(operations: readonly PatchOperation[]): GroupPatch {
  const patch = new GroupPatchBuilder();
  for (const operation of operations) {
    if (operation.path !== undefined) {
      patch.apply(operation.op, operation.path, operation.value);
      continue;
    }
    if (!isRecord(operation.value)) {
      throw new ScimError('invalidValue', `An ${operation.op} without a path takes an object of attributes.`);
    }
    for (const [key, value] of Object.entries(operation.value)) {
      if (readOnlyAttributes.Group.has(key.toLowerCase())) continue;
      let path: PathSyntax;
      try {
        path = parsePathSyntax(key);
      } catch {
        continue; // Not a name of any attribute, so not one Gatehouse keeps.
      }
      patch.apply(operation.op, path, value);
    }
  }
  return patch.result();
}

class GroupPatchBuilder {
  private attributes: Partial<GroupAttributes> | undefined;
  /** Either the whole new list, or what joins and what leaves. */
  private members: { replace: Set<string> } | { add: Set<string>; remove: Set<string> } | undefined;

  apply(op: PatchOperation['op'], path: PathSyntax, value: unknown): void {
    const { schema, attribute } = splitSchema(path.attribute);
    if (schema !== undefined && schema !== GROUP_SCHEMA.toLowerCase()) return;
    const name = attribute.toLowerCase();
    const top = name.split('.')[0] ?? name;
    if (readOnlyAttributes.Group.has(top)) throw new ScimError('mutability', `${top} is read-only.`);
    if (top === 'members') {
      if (name !== 'members')
        throw new ScimError('invalidPath', 'Name members as a whole, or by members[value eq "id"].');
      this.changeMembers(op, path, value);
      return;
    }
    if (name !== 'displayname' && name !== 'externalid') return;
    if (path.filter !== undefined || path.subAttribute !== undefined) {
      throw new ScimError(
        'invalidPath',
        `${name === 'displayname' ? 'displayName' : 'externalId'} has no values to filter.`,
      );
    }
    this.attributes ??= {};
    if (name === 'displayname') {
      const displayName = op === 'remove' ? undefined : readAttribute({ type: 'string' }, value, 'displayName');
      if (typeof displayName !== 'string' || displayName.trim() === '') {
        throw new ScimError('invalidValue', 'displayName is required.');
      }
      this.attributes.displayName = displayName;
    } else {
      const externalId = op === 'remove' ? undefined : readAttribute({ type: 'string' }, value, 'externalId');
      this.attributes.externalId = typeof externalId === 'string' ? externalId : undefined;
    }
  }

  private changeMembers(op: PatchOperation['op'], path: PathSyntax, value: unknown): void {
    if (path.subAttribute !== undefined) {
      throw new ScimError('invalidPath', 'Name members as a whole, or by members[value eq "id"].');
    }
    if (path.filter !== undefined) {
      if (op !== 'remove') {
        throw new ScimError('invalidPath', 'A members filter can only remove: add and replace take a list of members.');
      }
      for (const id of idsOfFilter(path.filter)) this.remove(id);
      return;
    }
    if (op === 'remove') {
      if (value === undefined || value === null) this.members = { replace: new Set() };
      else for (const id of memberIds(value)) this.remove(id);
      return;
    }
    const ids = memberIds(value);
    if (op === 'replace') {
      this.members = { replace: new Set(ids) };
      return;
    }
    for (const id of ids) this.add(id);
  }

  private add(id: string): void {
    this.members ??= { add: new Set(), remove: new Set() };
    if ('replace' in this.members) {
      this.members.replace.add(id);
    } else {
      this.members.remove.delete(id);
      this.members.add.add(id);
    }
  }

  private remove(id: string): void {
    this.members ??= { add: new Set(), remove: new Set() };
    if ('replace' in this.members) {
      this.members.replace.delete(id);
    } else {
      this.members.add.delete(id);
      this.members.remove.add(id);
    }
  }

  result(): GroupPatch {
    const patch: GroupPatch = {};
    if (this.attributes !== undefined) patch.attributes = this.attributes;
    if (this.members !== undefined) {
      patch.members =
        'replace' in this.members
          ? { replace: [...this.members.replace] }
          : { add: [...this.members.add], remove: [...this.members.remove] };
    }
    return patch;
  }
}

/** The ids of a list of members (`[{ "value": id }, ...]`); a single member object counts as a list of one. */
function memberIds(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((member) => {
    const id = isRecord(member) ? valueOf(member) : undefined;
    const read = readAttribute({ type: 'string' }, id, 'Each member value');
    if (typeof read !== 'string') throw new ScimError('invalidValue', 'Each member needs a value (the user id).');
    return read;
  });
}

/** A member object's `value`, in any letter case. */
function valueOf(member: Record<string, unknown>): unknown {
  for (const [key, value] of Object.entries(member)) if (key.toLowerCase() === 'value') return value;
  return undefined;
}

/** `value eq "id"`, or several joined by `or`: the ids. */
function idsOfFilter(filter: FilterSyntax): string[] {
  if (filter.kind === 'logical' && filter.op === 'or') return filter.filters.flatMap(idsOfFilter);
  if (filter.kind === 'compare' && filter.op === 'eq' && filter.path.toLowerCase() === 'value') {
    if (typeof filter.value !== 'string') throw new ScimError('invalidPath', 'A member value is a string.');
    return [filter.value];
  }
  throw new ScimError('invalidPath', 'Members are removed by members[value eq "id"], joined by "or".');
}
