import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, metrics, trace, type TextMapPropagator } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtobufMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type MetricReader } from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { Logger } from '../../application/ports/logger.js';
import { OtelTelemetry } from './otel-telemetry.js';
import { OtlpProtobufSpanExporter } from './otlp-protobuf-span-exporter.js';
import { reportedOnce } from './reported-once.js';

/** What the configuration decides of the export (src/bootstrap/telemetry-configuration.ts reads it). */
export interface TelemetryExport {
  metrics: boolean;
  traces: boolean;
  serviceName: string;
  serviceVersion: string;
  /** OTLP/HTTP destination and encoding of each signal, when one is configured. */
  otlpTraces?: OtlpDestination;
  otlpMetrics?: OtlpDestination;
  /** How often metrics are pushed to the OTLP endpoint (OTEL_METRIC_EXPORT_INTERVAL, 60 s by default). */
  metricExportIntervalMs: number;
  /** How long one export may take, retries included (OTEL_EXPORTER_OTLP_TIMEOUT, 10 s by default). */
  exportTimeoutMs: number;
  /** The batch span processor's settings (OTEL_BSP_*): how long spans wait, how many are queued (more are dropped), per export. */
  spanBatches: { scheduledDelayMs: number; maxQueueSize: number; maxExportBatchSize: number; exportTimeoutMs: number };
  /** OTEL_RESOURCE_ATTRIBUTES, beside `service.name` and `service.version`. */
  resourceAttributes: Record<string, string>;
  /** OTEL_TRACES_SAMPLER and its argument: `parentbased_always_on` by default. */
  sampler: string;
  samplerRatio: number;
}

/** OTEL_EXPORTER_OTLP_PROTOCOL's values Gatehouse exports with: protobuf (the specification's default) or JSON, over HTTP. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface OtlpDestination {
  url: string;
  protocol: OtlpProtocol;
}

export interface OpenTelemetryOptions extends TelemetryExport {
  /** Serve the metrics in the Prometheus text format (the listener is the caller's). */
  prometheus: boolean;
  logger: Logger;
  /** An application's own readers and span processors, beside those the configuration makes (another backend, a test's in-memory exporter). */
  metricReaders?: readonly MetricReader[];
  spanProcessors?: readonly SpanProcessor[];
}

export interface OpenTelemetry {
  telemetry: OtelTelemetry;
  propagator: TextMapPropagator;
  /** Answers a scrape in the Prometheus text format, when `prometheus` was asked for. */
  prometheusHandler?: (request: IncomingMessage, response: ServerResponse) => void;
  /** Flushes what is queued (within the exporters' time-outs) and stops. */
  shutdown(): Promise<void>;
}

/** How long a stop waits for the last spans and metrics to leave. */
export const SHUTDOWN_FLUSH_MS = 1_000;

/**
 * Starts the OpenTelemetry SDK for one instance. This module, and with it the SDK and the
 * exporters it imports, is imported (bootstrap/telemetry.ts, by dynamic import) only when
 * telemetry is on: an instance with it off loads none of it. The SDK's packages are
 * CommonJS: imported statically here, the bundle gives them their named exports. The
 * meter and tracer providers are this instance's own (no global provider is registered,
 * so two instances in one process keep their numbers apart); the one global, when traces
 * are on, is the async-local-storage context manager, which makes a span active across awaits.
 */
export async function startOpenTelemetry(options: OpenTelemetryOptions): Promise<OpenTelemetry> {
  const resource = resourceFromAttributes({
    ...options.resourceAttributes,
    'service.name': options.serviceName,
    'service.version': options.serviceVersion,
  });
  // Registered once per process (a second instance, in tests, finds it there), and only when
  // spans are recorded: keeping a context across awaits costs every await of every request
  // on Node 20 and 22 (docs/performance.md, Telemetry), and metrics need none.
  if (options.traces) context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const meters = options.metrics ? meterProvider(options, resource) : undefined;
  const tracers = options.traces ? tracerProvider(options, resource) : undefined;
  const telemetry = new OtelTelemetry(
    meters?.provider.getMeter('gatehouse') ?? metrics.getMeterProvider().getMeter('gatehouse'),
    tracers?.getTracer('gatehouse') ?? trace.getTracerProvider().getTracer('gatehouse'),
    options.traces,
  );
  return {
    telemetry,
    propagator: new W3CTraceContextPropagator(),
    ...(meters?.prometheusHandler ? { prometheusHandler: meters.prometheusHandler } : {}),
    // A collector that is down must not hold the stop up: what is not out by then is dropped.
    shutdown: async () => {
      const flushed = Promise.allSettled([meters?.provider.shutdown(), tracers?.shutdown()]);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_FLUSH_MS).unref()));
      await Promise.race([flushed, late]);
      clearTimeout(timer);
    },
  };
}

function meterProvider(options: OpenTelemetryOptions, resource: Resource) {
  const readers: MetricReader[] = [...(options.metricReaders ?? [])];
  let prometheusHandler: OpenTelemetry['prometheusHandler'];
  if (options.prometheus) {
    // Its own server stays off: ours listens where PrometheusHost/PrometheusPort say (port 0 included).
    const exporter = new PrometheusExporter({ preventServerStart: true });
    prometheusHandler = (request, response) => exporter.getMetricsRequestHandler(request, response);
    readers.push(exporter);
  }
  if (options.otlpMetrics !== undefined) {
    const { url, protocol } = options.otlpMetrics;
    const settings = { url, timeoutMillis: options.exportTimeoutMs };
    const exporter = protocol === 'http/json' ? new JsonMetricExporter(settings) : new ProtobufMetricExporter(settings);
    const report = reportedOnce(options.logger, 'metrics');
    const exportOnce = exporter.export.bind(exporter);
    exporter.export = (batch, done) =>
      exportOnce(batch, (result) => {
        report(result.code !== 0, result.error);
        done(result);
      });
    readers.push(
      new PeriodicExportingMetricReader({
        exporter,
        exportIntervalMillis: options.metricExportIntervalMs,
        exportTimeoutMillis: Math.min(options.exportTimeoutMs, options.metricExportIntervalMs),
      }),
    );
  }
  return { provider: new MeterProvider({ resource, readers }), prometheusHandler };
}

function tracerProvider(options: OpenTelemetryOptions, resource: Resource) {
  const processors: SpanProcessor[] = [...(options.spanProcessors ?? [])];
  if (options.otlpTraces !== undefined) {
    // Protobuf by default: a batch is a third of JSON's size, and Gatehouse's encoder writes it quickest (docs/performance.md, Telemetry).
    const { url, protocol } = options.otlpTraces;
    const settings = { url, timeoutMillis: options.exportTimeoutMs };
    const exporter: SpanExporter =
      protocol === 'http/json' ? new JsonTraceExporter(settings) : new OtlpProtobufSpanExporter(settings);
    const report = reportedOnce(options.logger, 'traces');
    const exportOnce = exporter.export.bind(exporter);
    exporter.export = (spans, done) =>
      exportOnce(spans, (result) => {
        report(result.code !== 0, result.error);
        done(result);
      });
    processors.push(
      new BatchSpanProcessor(exporter, {
        // Bounded: at most maxQueueSize spans wait for export; more are dropped, never held.
        maxQueueSize: options.spanBatches.maxQueueSize,
        maxExportBatchSize: options.spanBatches.maxExportBatchSize,
        scheduledDelayMillis: options.spanBatches.scheduledDelayMs,
        exportTimeoutMillis: options.spanBatches.exportTimeoutMs,
      }),
    );
  }
  return new BasicTracerProvider({ resource, sampler: sampler(options), spanProcessors: processors });
}

/** OTEL_TRACES_SAMPLER's samplers; `parentbased_*` follows a trusted parent's decision. */
function sampler(options: OpenTelemetryOptions): Sampler {
  const root = (name: string): Sampler => {
    if (name.endsWith('always_off')) return new AlwaysOffSampler();
    if (name.endsWith('traceidratio')) return new TraceIdRatioBasedSampler(options.samplerRatio);
    return new AlwaysOnSampler();
  };
  return options.sampler.startsWith('parentbased_')
    ? new ParentBasedSampler({ root: root(options.sampler) })
    : root(options.sampler);
}
