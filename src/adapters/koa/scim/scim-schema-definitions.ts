import {
  ENTERPRISE_USER_SCHEMA,
  GROUP_SCHEMA,
  USER_SCHEMA,
  groupSchema,
  userSchema,
  type AttributeSchema,
  type ComplexSchema,
} from '../../../domain/directory/scim-schemas.js';

/** Attributes compared with regard to letter case (RFC 7643 4.1, 3.1): identifiers, not names. */
const CASE_EXACT = new Set(['externalId', 'value']);
/** The attribute each resource needs. */
const REQUIRED = new Set(['userName', 'displayName']);

/**
 * The `/Schemas` resources (RFC 7643 7), made from the very tables the bodies are read
 * with (domain/directory/scim-schemas.ts), so that what a directory is told is kept is what
 * is kept.
 */
export function schemaDefinitions(): { id: string; name: string; description: string; attributes: unknown[] }[] {
  const { [ENTERPRISE_USER_SCHEMA]: enterprise, ...core } = userSchema;
  const enterpriseAttributes = enterprise?.type === 'complex' ? enterprise.attributes : {};
  return [
    { id: USER_SCHEMA, name: 'User', description: 'User Account', attributes: definitions(core, 'User') },
    {
      id: ENTERPRISE_USER_SCHEMA,
      name: 'EnterpriseUser',
      description: 'Enterprise User',
      attributes: definitions(enterpriseAttributes, 'User'),
    },
    { id: GROUP_SCHEMA, name: 'Group', description: 'Group', attributes: definitions(groupSchema, 'Group') },
  ];
}

function definitions(schema: ComplexSchema, resource: 'User' | 'Group'): unknown[] {
  return Object.entries(schema).map(([name, attribute]) => definition(name, attribute, resource));
}

function definition(name: string, attribute: AttributeSchema, resource: 'User' | 'Group'): Record<string, unknown> {
  const common = {
    name,
    multiValued: attribute.type === 'complex' && attribute.multiValued !== undefined,
    required: REQUIRED.has(name) && (name === 'userName' ? resource === 'User' : resource === 'Group'),
    mutability: 'readWrite',
    returned: 'default',
  };
  if (attribute.type === 'complex') {
    return { ...common, type: 'complex', subAttributes: definitions(attribute.attributes, resource) };
  }
  return {
    ...common,
    type: attribute.type,
    ...(attribute.type === 'string'
      ? { caseExact: CASE_EXACT.has(name), uniqueness: name === 'userName' ? 'server' : 'none' }
      : {}),
  };
}
