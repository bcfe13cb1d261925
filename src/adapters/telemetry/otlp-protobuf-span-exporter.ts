import { OTLPExporterBase, type OTLPExporterNodeConfigBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer, TraceExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { encodeTraceExportRequest } from './otlp-span-encoding.js';

/** The semantic conventions' `otel.component.type` of an OTLP/HTTP span exporter. */
const COMPONENT_TYPE = 'otlp_http_span_exporter';

/**
 * The OTLP/HTTP protobuf span exporter, built as `@opentelemetry/exporter-trace-otlp-proto`'s
 * is (the same transport, environment variables, retries, time-out, concurrency limit and
 * response handling) with one part of Gatehouse's own: the request body is encoded by
 * `encodeTraceExportRequest`, which writes the SDK serializer's bytes in less than half its
 * time (docs/performance.md, Telemetry).
 */
export class OtlpProtobufSpanExporter extends OTLPExporterBase<ReadableSpan[]> implements SpanExporter {
  constructor(config: OTLPExporterNodeConfigBase) {
    super(
      createOtlpHttpExportDelegate(
        convertLegacyHttpOptions(config, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
        {
          serializeRequest: encodeTraceExportRequest,
          deserializeResponse: ProtobufTraceSerializer.deserializeResponse,
        },
        COMPONENT_TYPE,
        TraceExporterMetricsHelper,
        undefined,
      ),
    );
  }
}
