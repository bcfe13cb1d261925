import type PinoPretty from 'pino-pretty';
import type { LogDestination } from './buffered-destination.js';

/** The fields of the request log line (middleware/request-log.ts), shown by `requestLine` instead. */
const REQUEST_FIELDS = ['reqId', 'method', 'url', 'status', 'ms'];
/** The active span's ids (telemetry): for a log collector to join lines to traces, not for a person reading a terminal. */
const TRACE_FIELDS = ['trace_id', 'span_id'];

/**
 * Log lines for a person at a terminal: one short coloured line per request
 * (`12:04:31 INFO: GET /Account/Login 200 3.1 ms`), other lines as their message with
 * their fields on the same line. JSON stays the format everywhere else: pino-pretty is a
 * devDependency, absent from production installs, so this resolves to undefined there
 * and the caller keeps JSON. It resolves to a factory because the stream writes to stdout
 * from the moment it exists: the caller makes it only once it knows it wants it.
 */
export async function loadPrettyLogLines(): Promise<(() => LogDestination) | undefined> {
  let pretty: typeof PinoPretty;
  try {
    ({ default: pretty } = await import('pino-pretty'));
  } catch {
    return undefined;
  }
  return () =>
    pretty({
      translateTime: 'HH:MM:ss',
      singleLine: true,
      ignore: ['pid', 'hostname', ...REQUEST_FIELDS, ...TRACE_FIELDS].join(','),
      messageFormat: requestLine,
    });
}

/** `GET /path 302 1.2 ms` for the request log line, the message itself for every other line. */
const requestLine: PinoPretty.MessageFormatFunc = (log, messageKey, _level, { colors }) => {
  const message = String(log[messageKey] ?? '');
  if (message !== 'request' || typeof log.status !== 'number') return message;
  const status = log.status;
  const paint = status >= 500 ? colors.red : status >= 400 ? colors.yellow : status >= 300 ? colors.cyan : colors.green;
  return `${String(log.method)} ${String(log.url)} ${paint(String(status))} ${colors.gray(`${String(log.ms)} ms`)}`;
};
