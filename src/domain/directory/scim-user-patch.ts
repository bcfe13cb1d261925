import type { UserAttributes } from './directory-resources.js';
import { ScimError } from './scim-error.js';
import { parsePathSyntax, type FilterSyntax, type PathSyntax } from './scim-filter-syntax.js';
import { canonicalName, isRecord, readAttribute, readComplex, type Json, type JsonObject } from './scim-json.js';
import type { PatchOperation } from './scim-patch.js';
import { readUser, userJson } from './scim-resources.js';
import {
  ENTERPRISE_USER_SCHEMA,
  readOnlyAttributes,
  splitSchema,
  USER_SCHEMA,
  userSchema,
  type AttributeSchema,
  type ComplexSchema,
} from './scim-schemas.js';
import { matchesValue, valueFromFilter } from './scim-value-filter.js';

/**
 * A user PATCH (RFC 7644 3.5.2), applied by hand rather than with the npm package
 * `scim-patch`: that package works on untyped resources, names attributes in one letter
 * case, reads its path filters with `scim2-parse-filter` (see scim-filter-syntax.ts for why
 * not), and the domain layer takes no package. Here paths resolve against `userSchema`, so
 * every name is matched without regard to letter case and every value is read by the rules
 * a POST body is; the result is read once more by `readUser`'s rules.
 *
 * - add: a simple attribute is set; a complex one (`name`, the enterprise extension, its
 *   `manager`) gets the sub-attributes given, others kept; a multi-valued one gets the values
 *   given appended (one already there is not added twice). Without a path the value is an
 *   object of attributes, each applied as its own add; its keys may be paths (Entra ID sends
 *   `"name.givenName"`, and the enterprise extension's attributes URN-qualified).
 * - replace: as add, but a multi-valued attribute's values are replaced (RFC 7644 3.5.2.3).
 * - remove: the attribute, the sub-attribute, or the values a filter matches; `active` cannot
 *   be removed (it would turn a deprovisioned user active again: replace it instead).
 * - A value filter (`emails[type eq "work"]`, with or without `.value`) on replace or remove
 *   that matches no value is 400 `noTarget`; on add, the value is created from the filter's
 *   `eq` comparisons (`{ type: "work", value }`), as Entra ID expects.
 * - A value set `primary` turns the others' `primary` off (RFC 7644 3.5.2).
 * - `id`, `meta`, `groups`, `schemas` named by a path: 400 `mutability`; as keys of a
 *   path-less value they are ignored, as in a PUT body. Attributes Gatehouse does not keep
 *   (scim-schemas.ts) are ignored too, so a directory mapping more than Gatehouse keeps
 *   still provisions; a `password` is never kept.
 */
export function applyUserPatch(attributes: UserAttributes, operations: readonly PatchOperation[]): UserAttributes {
  const user = userJson(attributes);
  for (const operation of operations) {
    if (operation.path === undefined) applyWithoutPath(user, operation);
    else applyAt(user, operation.op, operation.path, operation.value);
  }
  return readUser(user);
}

interface Step {
  name: string;
  schema: AttributeSchema;
}

/** Where a path points: attributes from the top down, a value filter on the first when it is multi-valued. */
interface Target {
  steps: Step[];
  filter?: FilterSyntax;
}

function applyWithoutPath(user: JsonObject, operation: PatchOperation): void {
  if (!isRecord(operation.value)) {
    throw new ScimError('invalidValue', `An ${operation.op} without a path takes an object of attributes.`);
  }
  const seen = new Set<string>();
  for (const [key, value] of Object.entries(operation.value)) {
    if (readOnlyAttributes.User.has(key.toLowerCase())) continue;
    let path: PathSyntax;
    try {
      path = parsePathSyntax(key);
    } catch {
      continue; // Not a name of any attribute, so not one Gatehouse keeps.
    }
    if (seen.has(key.toLowerCase())) throw new ScimError('invalidSyntax', 'The value names one attribute twice.');
    seen.add(key.toLowerCase());
    applyAt(user, operation.op, path, value);
  }
}

function applyAt(user: JsonObject, op: PatchOperation['op'], path: PathSyntax, value: unknown): void {
  const target = resolve(path);
  if (target === undefined) return;
  const [first, ...rest] = target.steps;
  if (first === undefined) return;
  if (op === 'remove' && first.name === 'active' && rest.length === 0) {
    throw new ScimError('invalidValue', 'active cannot be removed: replace it with true or false.');
  }
  if (first.schema.type === 'complex' && first.schema.multiValued) {
    changeValues(user, first, rest[0], target.filter, op, value);
  } else {
    change(user, target.steps, op, value);
  }
}

/** The path's attributes in `userSchema`; undefined for an attribute Gatehouse does not keep. */
function resolve(path: PathSyntax): Target | undefined {
  const lower = path.attribute.toLowerCase();
  const enterprise = ENTERPRISE_USER_SCHEMA.toLowerCase();
  let names: string[];
  let schema: ComplexSchema = userSchema;
  const steps: Step[] = [];
  if (lower === enterprise || lower.startsWith(`${enterprise}:`)) {
    const extension = userSchema[ENTERPRISE_USER_SCHEMA];
    if (extension === undefined || extension.type !== 'complex') return undefined;
    steps.push({ name: ENTERPRISE_USER_SCHEMA, schema: extension });
    schema = extension.attributes;
    names = lower === enterprise ? [] : path.attribute.slice(enterprise.length + 1).split('.');
  } else {
    const { schema: urn, attribute } = splitSchema(path.attribute);
    if (urn !== undefined && urn !== USER_SCHEMA.toLowerCase()) return undefined;
    names = attribute.split('.');
    if (readOnlyAttributes.User.has((names[0] ?? '').toLowerCase())) {
      throw new ScimError('mutability', `${(names[0] ?? '').toLowerCase()} is read-only.`);
    }
    const extension = userSchema[ENTERPRISE_USER_SCHEMA];
    // Entra ID's tutorial adds the manager by `"path": "manager"`, unqualified: an extension
    // attribute no core attribute shares a name with is read as the extension's.
    if (
      urn === undefined &&
      canonicalName(userSchema, names[0] ?? '') === undefined &&
      extension?.type === 'complex' &&
      canonicalName(extension.attributes, names[0] ?? '') !== undefined
    ) {
      steps.push({ name: ENTERPRISE_USER_SCHEMA, schema: extension });
      schema = extension.attributes;
    }
  }
  if (path.subAttribute !== undefined) names.push(path.subAttribute);
  for (const [index, given] of names.entries()) {
    const name = canonicalName(schema, given);
    const attribute = name === undefined ? undefined : schema[name];
    if (name === undefined || attribute === undefined) return undefined;
    steps.push({ name, schema: attribute });
    const last = index === names.length - 1;
    if (!last) {
      if (attribute.type !== 'complex') throw new ScimError('invalidPath', `${name} has no sub-attributes.`);
      schema = attribute.attributes;
    }
  }
  const first = steps[0];
  if (path.filter !== undefined) {
    const filtered = first?.schema.type === 'complex' && first.schema.multiValued !== undefined;
    // The filter belongs to the attribute before `[`: the first, with at most a sub-attribute after it.
    if (!filtered || steps.length - (path.subAttribute === undefined ? 1 : 2) !== 0) {
      throw new ScimError('invalidPath', 'A value filter applies to a multi-valued attribute only.');
    }
    return { steps, filter: path.filter };
  }
  return { steps };
}

/** A change below single-valued attributes: a simple attribute, a complex one, or a sub-attribute of one. */
function change(container: JsonObject, steps: Step[], op: PatchOperation['op'], value: unknown): void {
  const [step, ...rest] = steps;
  if (step === undefined) return;
  if (rest.length > 0) {
    const child = container[step.name];
    if (op === 'remove' && !isJsonObject(child)) return;
    const object: JsonObject = isJsonObject(child) ? child : {};
    change(object, rest, op, value);
    if (Object.keys(object).length === 0) delete container[step.name];
    else container[step.name] = object;
    return;
  }
  if (op === 'remove') {
    delete container[step.name];
    return;
  }
  const given = step.name === 'manager' ? managerValue(value) : value;
  const read = readAttribute(step.schema, given, step.name);
  const current = container[step.name];
  if (read === undefined) delete container[step.name];
  else if (isJsonObject(read) && isJsonObject(current)) container[step.name] = merged(current, read);
  else container[step.name] = read;
}

/**
 * The manager as Entra ID sends it: by its id alone (`"value": "2819c223-..."`), or, in its
 * tutorial, as a list of one reference (`[{ "$ref": "...", "value": "2819c223-..." }]`).
 */
function managerValue(value: unknown): unknown {
  if (typeof value === 'string') return { value };
  if (Array.isArray(value) && value.length === 1) return value[0];
  return value;
}

/** A change of a multi-valued attribute (`emails`, `phoneNumbers`), of some of its values, or of their sub-attribute. */
function changeValues(
  user: JsonObject,
  step: Step,
  sub: Step | undefined,
  filter: FilterSyntax | undefined,
  op: PatchOperation['op'],
  value: unknown,
): void {
  if (step.schema.type !== 'complex' || step.schema.multiValued === undefined) return;
  const schema = step.schema.attributes;
  const { maxValues } = step.schema.multiValued;
  const current = user[step.name];
  const values: JsonObject[] = Array.isArray(current) ? current.filter(isJsonObject) : [];
  const wasPrimary = new Set(values.filter((element) => element.primary === true));
  let next: JsonObject[];
  if (filter === undefined && sub === undefined) {
    next = wholeAttribute(values, step.schema, step.name, op, value);
  } else {
    let selected = filter === undefined ? values : values.filter((element) => matchesValue(filter, element, schema));
    next = values;
    if (selected.length === 0) {
      if (filter === undefined && op === 'remove') return;
      // RFC 7644 3.5.2.3: a replace of what does not exist is an add; but a filter that matches
      // nothing is noTarget for replace and remove (3.5.2).
      const created = filter === undefined ? {} : op === 'add' ? valueFromFilter(filter, schema) : undefined;
      if (created === undefined) {
        throw new ScimError('noTarget', `No value of ${step.name} matches the path's filter.`);
      }
      next = [...values, created];
      selected = [created];
    }
    const chosen = new Set(selected);
    if (sub === undefined) {
      // `emails[type eq "work"]`: the matching values as a whole.
      const read = op === 'remove' ? undefined : readComplex(schema, value, `The value for ${step.name}`);
      next = next.flatMap((element) => {
        if (!chosen.has(element)) return [element];
        if (read === undefined) return [];
        return [op === 'add' ? merged(element, read) : read];
      });
    } else if (op === 'remove' && sub.name === 'value') {
      // A value without its `value` is no value: it goes.
      next = next.filter((element) => !chosen.has(element));
    } else {
      for (const element of chosen) change(element, [sub], op === 'remove' ? 'remove' : 'replace', value);
    }
  }
  if (next.length > maxValues) {
    throw new ScimError('invalidValue', `${step.name} holds more than ${maxValues} values.`);
  }
  keepOnePrimary(next, wasPrimary);
  if (next.length === 0) delete user[step.name];
  else user[step.name] = next;
}

function wholeAttribute(
  values: JsonObject[],
  schema: AttributeSchema,
  name: string,
  op: PatchOperation['op'],
  value: unknown,
): JsonObject[] {
  if (op === 'remove') {
    // A value list with the remove (as Entra ID sends for members) removes those values only.
    if (!Array.isArray(value)) return [];
    const gone = new Set(value.map((element) => (isRecord(element) ? String(element.value).toLowerCase() : '')));
    return values.filter((element) => !gone.has(String(element.value).toLowerCase()));
  }
  // A single value object where a list belongs is read as a list of one.
  const read = readAttribute(schema, Array.isArray(value) || value === null ? value : [value], name);
  const given = Array.isArray(read) ? read.filter(isJsonObject) : [];
  if (op === 'replace') return given;
  const known = new Set(values.map((element) => JSON.stringify(element)));
  return [...values, ...given.filter((element) => !known.has(JSON.stringify(element)))];
}

/** RFC 7644 3.5.2: a value made primary by this operation turns off the others'. */
function keepOnePrimary(values: JsonObject[], wasPrimary: ReadonlySet<JsonObject>): void {
  const primary = values.filter((element) => element.primary === true);
  const newly = primary.filter((element) => !wasPrimary.has(element));
  if (primary.length < 2 || newly.length === 0) return;
  for (const element of primary) if (!newly.includes(element)) element.primary = false;
}

/** Sub-attributes of `incoming` over those of `current`, complex ones merged in turn. */
function merged(current: JsonObject, incoming: JsonObject): JsonObject {
  const result: JsonObject = { ...current };
  for (const [key, value] of Object.entries(incoming)) {
    const before = result[key];
    result[key] = isJsonObject(before) && isJsonObject(value) ? merged(before, value) : value;
  }
  return result;
}

function isJsonObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
