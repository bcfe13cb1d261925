import { MetricReader, type DataPoint, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { TelemetryParts } from '../../src/bootstrap/telemetry.js';

/** A metric reader read on demand: what the SDK has aggregated so far, as an exporter would receive it. */
class CollectingReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** One point of one metric: its attributes and value (a number, or a histogram's count). */
export interface Point {
  metric: string;
  attributes: Record<string, unknown>;
  value: number;
}

/**
 * The SDK's own in-memory reader and span exporter, handed to Gatehouse as an application
 * would hand its own (GatehouseOptions.telemetry): tests read exactly what an exporter sees.
 */
export function telemetryReaders() {
  const reader = new CollectingReader();
  const spans = new InMemorySpanExporter();
  const parts: TelemetryParts = { metricReaders: [reader], spanProcessors: [new SimpleSpanProcessor(spans)] };
  return {
    parts,
    /** Every metric point collected now. */
    async points(): Promise<Point[]> {
      const { resourceMetrics } = await reader.collect();
      return pointsOf(resourceMetrics);
    },
    async raw(): Promise<ResourceMetrics> {
      return (await reader.collect()).resourceMetrics;
    },
    spans: (): ReadableSpan[] => spans.getFinishedSpans(),
  };
}

function pointsOf(resourceMetrics: ResourceMetrics): Point[] {
  return resourceMetrics.scopeMetrics.flatMap((scope) =>
    scope.metrics.flatMap((metric) =>
      (metric.dataPoints as DataPoint<unknown>[]).map((point) => ({
        metric: metric.descriptor.name,
        attributes: { ...point.attributes },
        value: typeof point.value === 'number' ? point.value : ((point.value as { count?: number }).count ?? NaN),
      })),
    ),
  );
}

/** The sum of the points of `metric` whose attributes include `match`. */
export function total(points: readonly Point[], metric: string, match: Record<string, unknown> = {}): number {
  return points
    .filter((p) => p.metric === metric && Object.entries(match).every(([key, value]) => p.attributes[key] === value))
    .reduce((sum, p) => sum + p.value, 0);
}
