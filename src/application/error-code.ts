import { isGatehouseError } from '../domain/errors.js';

/** The stable code of what went wrong (`idp.state_mismatch`), or `internal_error.unexpected` for anything else: never a message. */
export function errorCodeOf(error: unknown): string {
  return isGatehouseError(error) ? error.code : 'internal_error.unexpected';
}
