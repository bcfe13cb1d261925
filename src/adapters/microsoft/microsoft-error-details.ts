/** A Microsoft request or trace id: a GUID. */
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A Graph error code (`InvalidAuthenticationToken`) or an OAuth error code: a short identifier. */
const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_.]{0,63}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T][\d:.]+Z?$/;

/**
 * The diagnostics Microsoft puts in its error bodies and asks for when an operator
 * reports a problem: from the identity platform's token endpoint `error_codes` (the
 * AADSTS numbers), `trace_id`, `correlation_id` and `timestamp`; from Graph `error.code`
 * and `error.innerError["request-id"]`. Only values of their documented shape are kept;
 * `error_description` and `message` are free text that may echo what was sent, and are
 * never kept. Undefined when the body carries none.
 */
export function microsoftErrorDetails(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const details: Record<string, unknown> = {};
  if ('error_codes' in body && Array.isArray(body.error_codes)) {
    const codes = body.error_codes.filter((code): code is number => Number.isSafeInteger(code)).slice(0, 10);
    if (codes.length > 0) details.errorCodes = codes;
  }
  if ('trace_id' in body && matches(body.trace_id, GUID)) details.traceId = body.trace_id;
  if ('correlation_id' in body && matches(body.correlation_id, GUID)) details.correlationId = body.correlation_id;
  if ('timestamp' in body && matches(body.timestamp, TIMESTAMP)) details.timestamp = body.timestamp;
  if ('error' in body && typeof body.error === 'object' && body.error !== null) {
    const graph = body.error;
    if ('code' in graph && matches(graph.code, IDENTIFIER)) details.graphCode = graph.code;
    if ('innerError' in graph && typeof graph.innerError === 'object' && graph.innerError !== null) {
      const inner = graph.innerError;
      if ('request-id' in inner && matches(inner['request-id'], GUID)) details.requestId = inner['request-id'];
    }
  }
  return Object.keys(details).length > 0 ? details : undefined;
}

function matches(value: unknown, pattern: RegExp): value is string {
  return typeof value === 'string' && pattern.test(value);
}
