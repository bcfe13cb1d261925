import { expect } from 'chai';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Attributes,
  type HrTime,
  type SpanContext,
} from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { encodeTraceExportRequest } from '../../../../src/adapters/telemetry/otlp-span-encoding.js';

/** The SDK's own protobuf serializer: the bytes an OTLP receiver is known to accept. */
function sdkBytes(spans: readonly ReadableSpan[]): Buffer {
  return Buffer.from(ProtobufTraceSerializer.serializeRequest(spans as ReadableSpan[]) ?? new Uint8Array());
}

function ourBytes(spans: readonly ReadableSpan[]): Buffer {
  return Buffer.from(encodeTraceExportRequest(spans));
}

function recordingProvider(attributes: Attributes) {
  const finished = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(attributes),
    spanProcessors: [new SimpleSpanProcessor(finished)],
  });
  return { provider, finished };
}

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';

/** A finished span written by hand: values the SDK's span API would refuse or never make, for the encoder's every branch. */
function handMadeSpan(overrides: Partial<ReadableSpan> & { context?: SpanContext } = {}): ReadableSpan {
  const { context = { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED }, ...rest } = overrides;
  return {
    name: 'hand-made',
    kind: SpanKind.INTERNAL,
    spanContext: () => context,
    parentSpanContext: undefined,
    startTime: [1_795_000_000, 1],
    endTime: [1_795_000_001, 2],
    status: { code: SpanStatusCode.UNSET },
    attributes: {},
    links: [],
    events: [],
    duration: [1, 1],
    ended: true,
    resource: resourceFromAttributes({ 'service.name': 'hand' }),
    instrumentationScope: { name: 'hand' },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    ...rest,
  };
}

/** The fixed64 after the first tag `tag` in `bytes`, as a bigint (the span's times: field 7 is 0x39, field 8 is 0x41). */
function fixed64After(bytes: Buffer, tag: number): bigint {
  return bytes.readBigUInt64LE(bytes.indexOf(tag) + 1);
}

describe('encodeTraceExportRequest (OTLP protobuf of finished spans, byte for byte the SDK serializer)', () => {
  it("writes a batch of Gatehouse's server spans exactly as the SDK does, longer than 16 KB", () => {
    const { provider, finished } = recordingProvider({ 'service.name': 'gatehouse', 'service.version': '0.1.0' });
    const tracer = provider.getTracer('gatehouse');
    for (let request = 0; request < 512; request++) {
      const span = tracer.startSpan('GET', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET' } });
      span.setAttributes({ 'http.response.status_code': 200, 'http.route': '/api/app-info' });
      span.updateName('GET /api/app-info');
      span.end();
    }
    const spans = finished.getFinishedSpans();
    const ours = ourBytes(spans);
    expect(ours.length).to.be.greaterThan(16_384); // three bytes of length for the resource's spans
    expect(ours.equals(sdkBytes(spans))).to.equal(true);
  });

  it('writes children, events, links, trace state, statuses and every kind of attribute value as the SDK does', () => {
    const { provider, finished } = recordingProvider({ 'service.name': 'gatehouse', 'host.cores': 2 });
    const tracer = provider.getTracer('gatehouse', '1.2.3', { schemaUrl: 'https://opentelemetry.io/schemas/1.30.0' });
    const remoteParent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
      traceState: new TraceState('vendor=value,other=1'),
    });
    const server = tracer.startSpan('POST /Account/Login', { kind: SpanKind.SERVER }, remoteParent);
    const child = tracer.startSpan(
      'redis GET',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'ascii.short': 'abc',
          'unicode.short': 'Zoë, 東京, 🙂',
          'ascii.42': 'x'.repeat(42),
          'ascii.43': 'y'.repeat(43),
          'ascii.long': 'z'.repeat(300),
          'unicode.long': 'é'.repeat(100),
          'unicode.42': '東'.repeat(42), // 126 bytes: the longest whose length is one byte
          'unicode.43': '東'.repeat(43),
          'empty.string': '',
          true: true,
          false: false,
          zero: 0,
          'int.largest32': 0xffffffff,
          'int.past32': 2 ** 32,
          'int.large': 2 ** 40 + 7,
          'int.negative': -5,
          'int.negative.large': -(2 ** 40) - 3,
          'int.min64': -(2 ** 63),
          'double.past.int64': 2 ** 63,
          double: 1.5,
          'double.negative': -0.25,
          strings: ['a', 'ü', ''],
          numbers: [1, -2, 3.5],
          booleans: [true, false],
          'empty.array': [],
        },
        links: [
          {
            context: { traceId: 'f'.repeat(32), spanId: 'e'.repeat(16), traceFlags: TraceFlags.NONE },
            attributes: { reason: 'retry' },
          },
          {
            context: {
              traceId: TRACE_ID,
              spanId: SPAN_ID,
              traceFlags: TraceFlags.SAMPLED,
              isRemote: true,
              traceState: new TraceState('k=v'),
            },
          },
        ],
      },
      trace.setSpan(ROOT_CONTEXT, server),
    );
    child.addEvent('retried', { attempt: 2 });
    child.addEvent('plain');
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'refusé: connection reset' });
    child.end();
    server.setStatus({ code: SpanStatusCode.OK });
    server.end();
    const internal = provider.getTracer('another-scope').startSpan('internal');
    internal.end();
    const spans = finished.getFinishedSpans();
    expect(ourBytes(spans).equals(sdkBytes(spans))).to.equal(true);
  });

  it('groups spans of two resources and two scopes, interleaved, as the SDK does', () => {
    const first = recordingProvider({ 'service.name': 'first' });
    const second = recordingProvider({ 'service.name': 'second' });
    const spans: ReadableSpan[] = [];
    for (let index = 0; index < 6; index++) {
      const { provider, finished } = index % 2 === 0 ? first : second;
      provider
        .getTracer(index % 3 === 0 ? 'scope-a' : 'scope-b')
        .startSpan(`span ${index}`)
        .end();
      spans.push(...finished.getFinishedSpans().slice(-1));
    }
    expect(ourBytes(spans).equals(sdkBytes(spans))).to.equal(true);
  });

  it('writes values the span API never keeps (bytes, a key-value list, undefined) as the SDK does', () => {
    const spans = [
      handMadeSpan({
        attributes: {
          bytes: new Uint8Array([0, 1, 255]),
          nested: { inner: 'value', count: 3, deeper: { flag: true } },
          missing: undefined,
          mixed: ['text', 7, false],
        } as unknown as Attributes,
        droppedAttributesCount: 3,
        droppedEventsCount: 1,
        droppedLinksCount: 2,
      }),
      handMadeSpan({ kind: SpanKind.CONSUMER, name: 'n'.repeat(5_000), startTime: [0, 0], endTime: [0, 0] }),
      handMadeSpan({
        context: { traceId: TRACE_ID.toUpperCase(), spanId: SPAN_ID.toUpperCase(), traceFlags: TraceFlags.NONE },
      }),
    ];
    expect(ourBytes(spans).equals(sdkBytes(spans))).to.equal(true);
  });

  it('writes start and end as nanoseconds since the epoch, the carry of the nanoseconds included', () => {
    const cases: { time: HrTime; nanoseconds: bigint }[] = [
      { time: [1_795_000_000, 999_999_999], nanoseconds: 1_795_000_000_999_999_999n },
      { time: [0xffff, 999_999_999], nanoseconds: 65_535_999_999_999n },
      { time: [2 ** 33 + 12_345, 500_000_001], nanoseconds: (2n ** 33n + 12_345n) * 1_000_000_000n + 500_000_001n },
    ];
    for (const { time, nanoseconds } of cases) {
      const span = handMadeSpan({ startTime: time, endTime: time });
      const ours = ourBytes([span]);
      expect(fixed64After(ours, 0x39), `start of ${time.join(', ')}`).to.equal(nanoseconds);
      expect(fixed64After(ours, 0x41), `end of ${time.join(', ')}`).to.equal(nanoseconds);
      expect(ours.equals(sdkBytes([span]))).to.equal(true);
    }
  });

  it('writes nothing for no spans, as the SDK does', () => {
    expect(ourBytes([]).length).to.equal(0);
    expect(sdkBytes([]).length).to.equal(0);
  });
});
