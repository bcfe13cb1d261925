import { Ajv, type ErrorObject } from 'ajv';
import { error, keyOf, type SettingsProblem } from '../../domain/settings/problem.js';
import { projectTemplateSchema } from './schema.js';

// validateSchema: false skips checking our own constant schema against the JSON Schema
// meta-schema at every start (about 40 ms of a cold start); a test checks it instead.
const ajv = new Ajv({ allErrors: true, coerceTypes: true, strict: true, validateSchema: false });
// `secret` only declares which keys hold secrets; it validates nothing.
ajv.addKeyword({ keyword: 'secret', schemaType: 'boolean' });
const validate = ajv.compile(projectTemplateSchema);

/**
 * Types the merged tree in place (ajv coerces "true", "3000" from environment variables)
 * and reports each wrong type with its full key and the expected type, never the value.
 */
export function validateTypes(tree: Record<string, unknown>): SettingsProblem[] {
  if (validate(tree)) return [];
  return (validate.errors ?? []).map(describe);
}

function describe(failure: ErrorObject): SettingsProblem {
  const segments = failure.instancePath.split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const key = keyOf(...segments);
  switch (failure.keyword) {
    case 'type': {
      const expected = String(failure.params.type);
      const hint = expected === 'array' ? ' (in environment variables, one variable per item: ..__0, ..__1)' : '';
      return error(key, `must be ${expected === 'array' ? 'an array' : `a ${expected}`}${hint}`);
    }
    case 'enum':
      return error(key, `must be one of ${(failure.params.allowedValues as unknown[]).join(', ')}`);
    default:
      return error(key, `is invalid (${failure.keyword})`);
  }
}
