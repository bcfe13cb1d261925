import { isSpanContextValid, trace } from '@opentelemetry/api';

/**
 * The active span's ids as log fields, `"trace_id":"…","span_id":"…",` (the logger's
 * ContextFields fragment), or nothing outside a span: every log line and audit event
 * written inside a recorded request carries them, so a failure in the log leads to its
 * trace. Both ids are checked hexadecimal (isSpanContextValid), so the fragment needs no
 * escaping and can carry nothing else.
 */
export function activeTraceFields(): string {
  const span = trace.getActiveSpan();
  if (span === undefined) return '';
  const ids = span.spanContext();
  return isSpanContextValid(ids) ? `"trace_id":"${ids.traceId}","span_id":"${ids.spanId}",` : '';
}
