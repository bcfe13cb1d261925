import { GatehouseError } from '../domain/errors.js';

/**
 * The single value of a form field (undefined when absent); a repeated field is refused
 * (`request.repeated_parameter`), like a repeated query parameter: two values would let
 * one check read the first and another the second.
 */
export function singleField(form: URLSearchParams, name: string): string | undefined {
  const values = form.getAll(name);
  if (values.length > 1) {
    throw new GatehouseError('request.repeated_parameter', `The form field "${name}" must appear at most once.`, {
      safe: true,
    });
  }
  return values[0];
}
