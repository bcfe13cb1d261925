import type { Attributes, HrTime, Link, SpanContext } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { FIXED32, FIXED64, LENGTH_DELIMITED, ProtobufOutput, VARINT } from './protobuf-output.js';

/** Room to start with for a span: Gatehouse's server spans take about 190 bytes. */
const EXPECTED_SPAN_BYTES = 256;
const NANOSECONDS_PER_SECOND = 1_000_000_000;
/** OTLP's span flags beside the W3C trace flags: whether the parent's remoteness is known, and whether it was remote. */
const FLAGS_HAS_IS_REMOTE = 0x100;
const FLAGS_IS_REMOTE = 0x200;
const INT64_MIN = -(2 ** 63);
const INT64_LIMIT = 2 ** 63;

type InstrumentationScope = ReadableSpan['instrumentationScope'];

/**
 * An OTLP `ExportTraceServiceRequest` of finished spans, in Protocol Buffers: the same bytes
 * the SDK's own serializer writes (test/unit/adapters/telemetry/otlp-span-encoding.test.ts
 * compares them), in about half its time. The SDK's walks the whole batch twice, the first
 * time only to measure it, and makes a new array for every id it writes; this one walks it
 * once and decodes ids in place. The SDK's was the largest part of what a traced request
 * cost (docs/performance.md, Telemetry). Spans are grouped by resource, then by
 * instrumentation scope, each group in the order its first span came.
 */
export function encodeTraceExportRequest(spans: readonly ReadableSpan[]): Uint8Array {
  const out = new ProtobufOutput(spans.length * EXPECTED_SPAN_BYTES);
  for (const [resource, scopes] of groupedByResourceAndScope(spans)) {
    out.tag(1, LENGTH_DELIMITED); // ExportTraceServiceRequest.resource_spans
    const resourceSpans = out.beginMessage();
    writeResource(out, resource);
    for (const scopeSpans of scopes.values()) writeScopeSpans(out, scopeSpans);
    if (resource.schemaUrl) {
      out.tag(3, LENGTH_DELIMITED);
      out.string(resource.schemaUrl);
    }
    out.endMessage(resourceSpans);
  }
  return out.finish();
}

function groupedByResourceAndScope(spans: readonly ReadableSpan[]) {
  const resources = new Map<Resource, Map<InstrumentationScope, ReadableSpan[]>>();
  for (const span of spans) {
    let scopes = resources.get(span.resource);
    if (!scopes) resources.set(span.resource, (scopes = new Map()));
    const inScope = scopes.get(span.instrumentationScope);
    if (inScope) inScope.push(span);
    else scopes.set(span.instrumentationScope, [span]);
  }
  return resources;
}

function writeResource(out: ProtobufOutput, resource: Resource): void {
  out.tag(1, LENGTH_DELIMITED); // ResourceSpans.resource
  const at = out.beginMessage();
  writeAttributes(out, 1, resource.attributes);
  out.tag(2, VARINT); // dropped_attributes_count: a resource keeps every attribute it is given
  out.varint32(0);
  out.endMessage(at);
}

function writeScopeSpans(out: ProtobufOutput, spans: readonly ReadableSpan[]): void {
  const scope = spans[0]!.instrumentationScope;
  out.tag(2, LENGTH_DELIMITED); // ResourceSpans.scope_spans
  const at = out.beginMessage();
  out.tag(1, LENGTH_DELIMITED); // ScopeSpans.scope
  const scopeAt = out.beginMessage();
  out.tag(1, LENGTH_DELIMITED);
  out.string(scope.name);
  if (scope.version) {
    out.tag(2, LENGTH_DELIMITED);
    out.string(scope.version);
  }
  out.endMessage(scopeAt);
  for (const span of spans) writeSpan(out, span);
  if (scope.schemaUrl) {
    out.tag(3, LENGTH_DELIMITED);
    out.string(scope.schemaUrl);
  }
  out.endMessage(at);
}

function writeSpan(out: ProtobufOutput, span: ReadableSpan): void {
  out.tag(2, LENGTH_DELIMITED); // ScopeSpans.spans
  const at = out.beginMessage();
  const context = span.spanContext();
  writeIds(out, context);
  const parent = span.parentSpanContext;
  if (parent?.spanId) {
    out.tag(4, LENGTH_DELIMITED);
    out.hexBytes(parent.spanId);
  }
  out.tag(5, LENGTH_DELIMITED);
  out.string(span.name);
  // OTLP's SpanKind counts from UNSPECIFIED (0); the API's from INTERNAL (0).
  out.tag(6, VARINT);
  out.varint32(span.kind + 1);
  out.tag(7, FIXED64);
  writeTime(out, span.startTime);
  out.tag(8, FIXED64);
  writeTime(out, span.endTime);
  writeAttributes(out, 9, span.attributes);
  out.tag(10, VARINT);
  out.varint32(span.droppedAttributesCount);
  for (const event of span.events) writeEvent(out, event);
  out.tag(12, VARINT);
  out.varint32(span.droppedEventsCount);
  for (const link of span.links) writeLink(out, link);
  out.tag(14, VARINT);
  out.varint32(span.droppedLinksCount);
  out.tag(15, LENGTH_DELIMITED); // Span.status
  const statusAt = out.beginMessage();
  if (span.status.message) {
    out.tag(2, LENGTH_DELIMITED);
    out.string(span.status.message);
  }
  out.tag(3, VARINT);
  out.varint32(span.status.code);
  out.endMessage(statusAt);
  out.tag(16, FIXED32);
  out.fixed32(flags(context.traceFlags, parent?.isRemote));
  out.endMessage(at);
}

/** trace_id, span_id and trace_state: fields 1 to 3 of a span and of a link alike. */
function writeIds(out: ProtobufOutput, context: SpanContext): void {
  out.tag(1, LENGTH_DELIMITED);
  out.hexBytes(context.traceId);
  out.tag(2, LENGTH_DELIMITED);
  out.hexBytes(context.spanId);
  const traceState = context.traceState?.serialize();
  if (traceState) {
    out.tag(3, LENGTH_DELIMITED);
    out.string(traceState);
  }
}

function writeEvent(out: ProtobufOutput, event: TimedEvent): void {
  out.tag(11, LENGTH_DELIMITED); // Span.events
  const at = out.beginMessage();
  out.tag(1, FIXED64);
  writeTime(out, event.time);
  out.tag(2, LENGTH_DELIMITED);
  out.string(event.name);
  writeAttributes(out, 3, event.attributes);
  out.tag(4, VARINT);
  out.varint32(event.droppedAttributesCount ?? 0);
  out.endMessage(at);
}

function writeLink(out: ProtobufOutput, link: Link): void {
  out.tag(13, LENGTH_DELIMITED); // Span.links
  const at = out.beginMessage();
  writeIds(out, link.context);
  writeAttributes(out, 4, link.attributes);
  out.tag(5, VARINT);
  out.varint32(link.droppedAttributesCount ?? 0);
  out.tag(6, FIXED32);
  out.fixed32(flags(link.context.traceFlags, link.context.isRemote));
  out.endMessage(at);
}

function flags(traceFlags: number, remote: boolean | undefined): number {
  return (traceFlags & 0xff) | FLAGS_HAS_IS_REMOTE | (remote ? FLAGS_IS_REMOTE : 0);
}

/**
 * An HrTime ([seconds, nanoseconds]) as fixed64 nanoseconds. seconds × 10^9 passes 2^53 for
 * any date since 1970 + 104 days, so the seconds are taken in two halves of 16 bits and more,
 * each product exact, and added up in 32-bit halves with their carry.
 */
function writeTime(out: ProtobufOutput, [seconds, nanoseconds]: HrTime): void {
  const fromLowSeconds = (seconds % 0x10000) * NANOSECONDS_PER_SECOND; // below 2^46
  const fromHighSeconds = Math.floor(seconds / 0x10000) * NANOSECONDS_PER_SECOND; // to be shifted 16 bits up
  const lowSum = (fromLowSeconds >>> 0) + (fromHighSeconds % 0x10000) * 0x10000 + nanoseconds;
  const high =
    Math.floor(fromLowSeconds / 0x1_0000_0000) +
    Math.floor(fromHighSeconds / 0x10000) +
    Math.floor(lowSum / 0x1_0000_0000);
  out.fixed64(lowSum >>> 0, high >>> 0);
}

function writeAttributes(out: ProtobufOutput, field: number, attributes: Attributes | undefined): void {
  for (const key in attributes) {
    if (!Object.hasOwn(attributes, key)) continue;
    out.tag(field, LENGTH_DELIMITED);
    writeKeyValue(out, key, attributes[key]);
  }
}

function writeKeyValue(out: ProtobufOutput, key: string, value: unknown): void {
  const at = out.beginMessage();
  out.tag(1, LENGTH_DELIMITED);
  out.string(key);
  out.tag(2, LENGTH_DELIMITED);
  const valueAt = out.beginMessage();
  writeAnyValue(out, value);
  out.endMessage(valueAt);
  out.endMessage(at);
}

/** An attribute's value as an AnyValue (one without a representation, such as `undefined`, as an empty one). */
function writeAnyValue(out: ProtobufOutput, value: unknown): void {
  if (typeof value === 'string') {
    out.tag(1, LENGTH_DELIMITED);
    out.string(value);
  } else if (typeof value === 'boolean') {
    out.tag(2, VARINT);
    out.varint32(value ? 1 : 0);
  } else if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= INT64_MIN && value < INT64_LIMIT) {
      out.tag(3, VARINT);
      out.int64(value);
    } else {
      out.tag(4, FIXED64);
      out.double(value);
    }
  } else if (value instanceof Uint8Array) {
    out.tag(7, LENGTH_DELIMITED);
    out.bytes(value);
  } else if (Array.isArray(value)) {
    out.tag(5, LENGTH_DELIMITED); // array_value
    const at = out.beginMessage();
    for (const item of value) {
      out.tag(1, LENGTH_DELIMITED);
      const itemAt = out.beginMessage();
      writeAnyValue(out, item);
      out.endMessage(itemAt);
    }
    out.endMessage(at);
  } else if (typeof value === 'object' && value !== null) {
    out.tag(6, LENGTH_DELIMITED); // kvlist_value
    const at = out.beginMessage();
    writeAttributes(out, 1, value as Attributes);
    out.endMessage(at);
  }
}
