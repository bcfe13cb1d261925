import type { OtlpProtocol, TelemetryExport } from '../adapters/telemetry/start-open-telemetry.js';
import { error } from '../domain/settings/problem.js';
import type { TelemetrySettings } from '../domain/settings/settings.js';
import { StartupError } from './startup-error.js';

/**
 * What telemetry an instance runs, from `ProjectTemplate:Telemetry` and the standard OTEL_*
 * variables: the export, and the Prometheus listener when one is configured. (A type-only
 * import: the SDK the adapter module loads stays out of a start with telemetry off.)
 */
export interface TelemetryConfiguration extends TelemetryExport {
  prometheus?: { port: number; host: string };
}

const SAMPLERS = new Set([
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
]);

/**
 * Whether telemetry runs, and how. The precedence (docs/configuration.md, Telemetry):
 * `OTEL_SDK_DISABLED=true` turns everything off, whatever else is set; otherwise telemetry
 * is on when `Telemetry:Enabled` is true or an OTLP endpoint variable is set. `Metrics` and
 * `Traces` choose the signals; `OTEL_METRICS_EXPORTER=none` / `OTEL_TRACES_EXPORTER=none`
 * stop a signal's OTLP export only. Undefined: off, and nothing of the SDK is loaded.
 * Throws a StartupError naming the variable for an OTLP protocol it cannot speak (grpc).
 */
export function telemetryConfiguration(
  settings: TelemetrySettings,
  env: Record<string, string | undefined>,
  /** The package's name and version (read only when telemetry is on). */
  application: () => { name: string; version: string },
): TelemetryConfiguration | undefined {
  const variable = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  if (variable('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const base = variable('OTEL_EXPORTER_OTLP_ENDPOINT');
  const signalUrl = (signal: 'traces' | 'metrics') =>
    variable(`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`) ??
    (base === undefined ? undefined : `${base.replace(/\/+$/, '')}/v1/${signal}`);
  const protocol = (signal: 'TRACES' | 'METRICS'): OtlpProtocol => {
    const name = `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`;
    const given = variable(name) === undefined ? 'OTEL_EXPORTER_OTLP_PROTOCOL' : name;
    const value = variable(given)?.toLowerCase() ?? 'http/protobuf';
    if (value === 'http/protobuf' || value === 'http/json') return value;
    // grpc (or a misspelling) would send to an endpoint expecting another protocol: said at start, not per failed export.
    throw new StartupError([error(given, 'must be http/protobuf (the default) or http/json; grpc is not supported')]);
  };
  const tracesUrl = signalUrl('traces');
  const metricsUrl = signalUrl('metrics');
  if (!settings.Enabled && tracesUrl === undefined && metricsUrl === undefined) return undefined;
  const exported = (signal: 'TRACES' | 'METRICS') => variable(`OTEL_${signal}_EXPORTER`)?.toLowerCase() !== 'none';
  const sampler = variable('OTEL_TRACES_SAMPLER')?.toLowerCase() ?? 'parentbased_always_on';
  const ratio = Number(variable('OTEL_TRACES_SAMPLER_ARG') ?? 1);
  const interval = Number(variable('OTEL_METRIC_EXPORT_INTERVAL') ?? 60_000);
  const timeout = Number(variable('OTEL_EXPORTER_OTLP_TIMEOUT') ?? 10_000);
  const whole = (name: string, fallback: number) => {
    const value = Number(variable(name) ?? fallback);
    return Number.isSafeInteger(value) && value > 0 ? value : fallback;
  };
  const maxQueueSize = whole('OTEL_BSP_MAX_QUEUE_SIZE', 2_048);
  const { name, version } = application();
  return {
    serviceVersion: version,
    metrics: settings.Metrics,
    traces: settings.Traces,
    serviceName: variable('OTEL_SERVICE_NAME') ?? name,
    ...(settings.Traces && tracesUrl !== undefined && exported('TRACES')
      ? { otlpTraces: { url: tracesUrl, protocol: protocol('TRACES') } }
      : {}),
    ...(settings.Metrics && metricsUrl !== undefined && exported('METRICS')
      ? { otlpMetrics: { url: metricsUrl, protocol: protocol('METRICS') } }
      : {}),
    metricExportIntervalMs: Number.isFinite(interval) && interval > 0 ? interval : 60_000,
    exportTimeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : 10_000,
    spanBatches: {
      scheduledDelayMs: whole('OTEL_BSP_SCHEDULE_DELAY', 5_000),
      maxQueueSize,
      // A batch larger than the queue could never fill: the specification's rule, as the SDK applies it.
      maxExportBatchSize: Math.min(whole('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512), maxQueueSize),
      exportTimeoutMs: whole('OTEL_BSP_EXPORT_TIMEOUT', 30_000),
    },
    resourceAttributes: resourceAttributes(variable('OTEL_RESOURCE_ATTRIBUTES')),
    // An unknown sampler name is the default, as the OpenTelemetry SDKs treat it.
    sampler: SAMPLERS.has(sampler) ? sampler : 'parentbased_always_on',
    samplerRatio: Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : 1,
    ...(settings.Metrics && settings.PrometheusPort >= 0
      ? { prometheus: { port: settings.PrometheusPort, host: settings.PrometheusHost } }
      : {}),
  };
}

/**
 * `OTEL_RESOURCE_ATTRIBUTES`: `key=value` pairs separated by commas, values percent-encoded
 * (the specification's format). A pair without `=` or with a key or value that does not
 * decode is left out, as the SDKs do, rather than failing the start; `service.name` and
 * `service.version` are the ones `OTEL_SERVICE_NAME` and the package give.
 */
export function resourceAttributes(text: string | undefined): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const pair of text?.split(',') ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    try {
      const key = decodeURIComponent(pair.slice(0, at).trim());
      const value = decodeURIComponent(pair.slice(at + 1).trim());
      if (key !== '' && key !== 'service.name' && key !== 'service.version') attributes[key] = value;
    } catch {
      // A malformed percent-encoding: that pair is left out.
    }
  }
  return attributes;
}
