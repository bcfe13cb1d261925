import { isSpanContextValid, trace } from '@opentelemetry/api';

/**
 * The active span's ids as log fields (`trace_id`, `span_id`), or nothing outside a span:
 * every log line and audit event written inside a request carries them, so a failure in the
 * log leads to its trace.
 */
export function activeTraceFields(): { trace_id: string; span_id: string } | undefined {
  const span = trace.getActiveSpan();
  if (span === undefined) return undefined;
  const ids = span.spanContext();
  return isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : undefined;
}
