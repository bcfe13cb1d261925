import type { Context } from 'koa';
import { GatehouseError } from '../../domain/errors.js';

/**
 * The single value of a query parameter, or undefined when absent. Koa turns
 * `?a=1&a=2` into an array; a repeated parameter where one value is expected is a 400,
 * never `String(value)` (which would smuggle `//evil` past a check of the first value).
 */
export function singleQuery(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  if (value === undefined || typeof value === 'string') return value;
  throw new GatehouseError('request.repeated_parameter', `The query parameter "${name}" must appear at most once.`, {
    safe: true,
  });
}
