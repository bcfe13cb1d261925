import { GatehouseError } from '../domain/errors.js';

/**
 * The single value of a form field, or of a query parameter read by an adapter (undefined
 * when absent); a repeated one is refused (`request.repeated_parameter`), like a repeated
 * query parameter at a route: two values would let one check read the first and another
 * the second.
 */
export function singleField(
  form: URLSearchParams,
  name: string,
  what: 'form field' | 'query parameter' = 'form field',
): string | undefined {
  const values = form.getAll(name);
  if (values.length > 1) {
    throw new GatehouseError('request.repeated_parameter', `The ${what} "${name}" must appear at most once.`, {
      safe: true,
    });
  }
  return values[0];
}
