import type { ErrorObject, ValidateFunction } from 'ajv';
import { error, keyOf, type SettingsProblem } from '../../domain/settings/problem.js';

/**
 * Types the merged tree in place (ajv coerces "true", "3000" from environment variables)
 * and reports each wrong type with its full key and the expected type, never the value.
 */
export function validateTypes(tree: Record<string, unknown>, validate: ValidateFunction): SettingsProblem[] {
  if (validate(tree)) return [];
  return (validate.errors ?? []).map(describe);
}

function describe(failure: ErrorObject): SettingsProblem {
  const segments = failure.instancePath
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
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
