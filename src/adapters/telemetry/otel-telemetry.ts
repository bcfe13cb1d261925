import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Histogram,
  type Meter,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type {
  CounterAttributes,
  CounterName,
  DurationAttributes,
  DurationName,
  Telemetry,
} from '../../application/ports/telemetry.js';
import { CumulativeCounter } from './cumulative-counter.js';
import {
  ACTIVE_SESSIONS,
  CERTIFICATE_EXPIRY,
  COUNTERS,
  DURATION_BUCKETS,
  DURATIONS,
  type AdapterDurationName,
} from './instruments.js';

/**
 * The application's counters and histograms on an OpenTelemetry meter, and the spans the
 * adapters open on its tracer. Instruments are made once, up front; recording is an
 * aggregation in memory (the SDK's), never I/O: exporters read the aggregates on their own
 * schedule. A signal switched off (`Metrics` or `Traces` false) is the API's no-op meter or
 * tracer: then recording costs a call that does nothing.
 */
export class OtelTelemetry implements Telemetry {
  readonly #counters: ReadonlyMap<string, CumulativeCounter>;
  readonly #durations: ReadonlyMap<string, Histogram>;

  constructor(
    readonly meter: Meter,
    readonly tracer: Tracer,
    /** Whether spans are recorded at all (`Traces`): when not, nothing opens one or reads the active context. */
    readonly tracing = true,
  ) {
    this.#counters = new Map(
      Object.entries(COUNTERS).map(([name, description]) => [name, new CumulativeCounter(meter, name, description)]),
    );
    this.#durations = new Map(
      Object.entries(DURATIONS).map(([name, description]) => [
        name,
        meter.createHistogram(name, { description, unit: 's', advice: { explicitBucketBoundaries: DURATION_BUCKETS } }),
      ]),
    );
  }

  count<Name extends CounterName>(name: Name, attributes: CounterAttributes[Name]): void {
    this.#counters.get(name)?.add(attributes);
  }

  duration<Name extends DurationName>(name: Name, seconds: number, attributes: DurationAttributes[Name]): void {
    this.#durations.get(name)?.record(seconds, attributes);
  }

  /**
   * `gatehouse.sessions.active`, read from `count` whenever a reader collects: only where the
   * store can count its sessions cheaply (the memory store; Redis would need a SCAN).
   */
  observeActiveSessions(count: () => number): void {
    this.meter
      .createObservableGauge(ACTIVE_SESSIONS, { description: 'Browser sessions held by this instance.' })
      .addCallback((result) => result.observe(count()));
  }

  /**
   * `gatehouse.connection.certificate.expiry`, one point per connection whose certificates
   * were read (its name as `provider`: a set bounded by the catalog), read from `read`
   * whenever a reader collects.
   */
  observeCertificateExpiry(read: () => ReadonlyArray<{ connection: string; seconds: number }>): void {
    this.meter
      .createObservableGauge(CERTIFICATE_EXPIRY, {
        description: "Seconds until the earliest signing certificate of each connection's identity provider expires.",
        unit: 's',
      })
      .addCallback((result) => {
        for (const { connection, seconds } of read()) result.observe(seconds, { provider: connection });
      });
  }

  /** An adapter's own duration (store operations, provider requests, HTTP requests). */
  adapterDuration(name: AdapterDurationName, seconds: number, attributes: Attributes): void {
    this.#durations.get(name)?.record(seconds, attributes);
  }

  /**
   * Runs `work` timed into `histogram` with its attributes and `outcome` (`success`, or
   * `failure` with the error's type), and, inside a recorded request, in a child span of the
   * active one (a store call, a provider request), active while `work` runs so that a
   * request it makes carries it on. Outside a recorded span (a request the sampler left out,
   * a background refresh) there is no span: its trace would not be kept, or would be a root
   * of one call.
   */
  async measure<T>(
    span: { name: string; kind: SpanKind; attributes: Attributes },
    histogram: AdapterDurationName,
    work: (active: Span | undefined) => Promise<T>,
    outcomeOf: (result: T) => 'success' | 'failure' = () => 'success',
  ): Promise<T> {
    const started = performance.now();
    const parent = this.tracing ? context.active() : undefined;
    const active =
      parent && trace.getSpan(parent)?.isRecording()
        ? this.tracer.startSpan(span.name, { kind: span.kind, attributes: span.attributes }, parent)
        : undefined;
    try {
      const result = await (active && parent
        ? context.with(trace.setSpan(parent, active), () => work(active))
        : work(undefined));
      const outcome = outcomeOf(result);
      if (outcome === 'failure') active?.setStatus({ code: SpanStatusCode.ERROR });
      this.adapterDuration(histogram, (performance.now() - started) / 1000, { ...span.attributes, outcome });
      return result;
    } catch (error) {
      const type = errorType(error);
      active?.setAttribute('error.type', type);
      active?.setStatus({ code: SpanStatusCode.ERROR });
      this.adapterDuration(histogram, (performance.now() - started) / 1000, {
        ...span.attributes,
        outcome: 'failure',
        'error.type': type,
      });
      throw error;
    } finally {
      active?.end();
    }
  }
}

/** A stable code (`session.store_unavailable`) or the error's class name: never its message, which may quote a value. */
export function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/.test(code)) return code;
  return error instanceof Error ? error.name : 'unknown';
}

export { SpanKind };
