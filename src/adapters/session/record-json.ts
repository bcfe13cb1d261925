import type { StoredRecord } from '../../application/ports/session-store.js';

/**
 * Both stores keep a record as JSON text: what is stored can no longer be changed
 * through the caller's object, every read hands out a fresh copy, and the stored size
 * is the text's size. Memory and Redis therefore behave alike: a `Date` comes back as
 * a string, an `undefined` property does not come back at all.
 */
export function encodeRecord(record: StoredRecord): string {
  return JSON.stringify(record);
}

/**
 * Parses what `encodeRecord` wrote; anything else means a corrupt store and throws a
 * fixed message: JSON.parse's own message quotes the input, which may hold a session.
 */
export function decodeRecord(json: string): StoredRecord {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    value = undefined;
  }
  if (!isRecord(value)) throw new TypeError('A stored session record is not a JSON object.');
  return value;
}

function isRecord(value: unknown): value is StoredRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
