import { GatehouseError } from '../../domain/errors.js';

/**
 * The store's one failure. The cause keeps name, message and code but not the
 * `command` ioredis attaches to reply errors: its arguments hold the session JSON.
 */
export function unavailable(error: unknown): GatehouseError {
  const cause = error instanceof Error ? redacted(error) : new Error('Non-error thrown by the Redis client.');
  return new GatehouseError('session.store_unavailable', 'The session store is unavailable.', { cause });
}

function redacted(error: Error): Error {
  const copy = new Error(error.message);
  copy.name = error.name;
  if (error.stack !== undefined) copy.stack = error.stack;
  if ('code' in error && typeof error.code === 'string') Object.assign(copy, { code: error.code });
  return copy;
}

/**
 * A short identifier that is safe to log: Node's `ECONNREFUSED`, Redis's `WRONGPASS`,
 * or the error's class name. Never the message, which may name the host.
 */
export function errorCode(error: unknown): string {
  if (!(error instanceof Error)) return 'UNKNOWN';
  if ('code' in error && typeof error.code === 'string' && /^[A-Z0-9_]{1,40}$/.test(error.code)) return error.code;
  const replyPrefix = /^([A-Z]{2,20}) /.exec(error.message);
  if (error.name === 'ReplyError' && replyPrefix?.[1] !== undefined) return replyPrefix[1];
  // ioredis gives up on the sentinels with a plain Error whose message quotes the last
  // reply or socket error: its code is named, the rest of the message is not.
  if (error.message.startsWith('All sentinels are unreachable')) {
    const last =
      /Last error: ([A-Z]{2,20})\b/.exec(error.message)?.[1] ?? /\b(E[A-Z]{3,20})\b/.exec(error.message)?.[1];
    return last === undefined ? 'SENTINELS_UNREACHABLE' : `SENTINELS_UNREACHABLE_${last}`;
  }
  return /^[A-Za-z]{1,40}$/.test(error.name) ? error.name : 'UNKNOWN';
}
