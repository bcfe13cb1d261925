import type { Middleware } from 'koa';
import type { MetricReader } from '@opentelemetry/sdk-metrics';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NoTelemetry, type Telemetry } from '../application/ports/telemetry.js';
import type { OutboundRequests } from '../adapters/outbound-requests.js';
import { asyncContextUsesHooks, nodeFlags } from './async-context-cost.js';
import type { SessionStores } from './session-stores.js';
import type { ValidatedConfiguration } from './validated-configuration.js';

/** What an application may add to the telemetry the configuration makes: its own readers and span processors. */
export interface TelemetryParts {
  metricReaders?: readonly MetricReader[];
  spanProcessors?: readonly SpanProcessor[];
}

/** The telemetry of one instance: the port, and the adapters' hooks, present only when it is on. */
export interface ComposedTelemetry {
  telemetry: Telemetry;
  /** Absent when off: then no store is wrapped, no request watched and no middleware added. */
  hooks?: {
    outbound: OutboundRequests;
    traceStores(stores: SessionStores): SessionStores;
    /** The `gatehouse.sessions.active` gauge, for a store that can count its sessions cheaply. */
    observeActiveSessions(count: () => number): void;
    /** The `gatehouse.connection.certificate.expiry` gauge, by connection. */
    observeCertificateExpiry(read: () => ReadonlyArray<{ connection: string; seconds: number }>): void;
    serverRequests(trustProxy: boolean, fixedRoutes: readonly string[]): Middleware;
  };
  /** Opens the Prometheus listener, if configured; resolves to its URL. */
  listen(): Promise<string | undefined>;
  /** Closes the listener and flushes what the exporters still hold. */
  close(): Promise<void>;
}

const OFF: ComposedTelemetry = {
  telemetry: new NoTelemetry(),
  listen: async () => undefined,
  close: async () => undefined,
};

/**
 * Telemetry as the configuration says: off (the no-op port, nothing of OpenTelemetry
 * loaded, no hook anywhere on the request path), or the OpenTelemetry adapter, loaded here
 * by dynamic import, with its hooks for the stores, the providers' requests, the HTTP
 * pipeline and the log.
 */
export async function composeTelemetry(
  configuration: ValidatedConfiguration,
  parts: TelemetryParts = {},
): Promise<ComposedTelemetry> {
  const config = configuration.telemetry;
  if (!config) return OFF;
  const [
    { startOpenTelemetry },
    { tracedSessionStore },
    { providerRequests },
    { serverRequests },
    { activeTraceFields },
    { listenForPrometheus },
  ] = await Promise.all([
    import('../adapters/telemetry/start-open-telemetry.js'),
    import('../adapters/telemetry/traced-session-store.js'),
    import('../adapters/telemetry/provider-requests.js'),
    import('../adapters/telemetry/server-requests.js'),
    import('../adapters/telemetry/trace-fields.js'),
    import('../adapters/telemetry/prometheus-listener.js'),
  ]);
  const otel = await startOpenTelemetry({
    ...config,
    prometheus: config.prometheus !== undefined,
    logger: configuration.logger,
    ...parts,
  });
  const { telemetry, propagator } = otel;
  if (config.traces) {
    configuration.addLogContext(activeTraceFields);
    if (asyncContextUsesHooks(process.version, nodeFlags(process.execArgv, process.env.NODE_OPTIONS))) {
      configuration.logger.info(
        { node: process.version },
        'telemetry: traces are on and this Node keeps their context with async hooks, which every await pays; ' +
          'Node 24, or Node 22 with NODE_OPTIONS=--experimental-async-context-frame, does not (docs/operations.md, Telemetry)',
      );
    }
  }
  let listener: { url: string; close(): Promise<void> } | undefined;
  return {
    telemetry,
    hooks: {
      outbound: providerRequests(telemetry, propagator),
      traceStores: (stores) => ({
        ...stores,
        sessions: tracedSessionStore(stores.sessions, 'sessions', telemetry),
        pendingSignIns: tracedSessionStore(stores.pendingSignIns, 'pending_sign_ins', telemetry),
        replayRecords: tracedSessionStore(stores.replayRecords, 'replay_records', telemetry),
      }),
      observeActiveSessions: (count) => telemetry.observeActiveSessions(count),
      observeCertificateExpiry: (read) => telemetry.observeCertificateExpiry(read),
      serverRequests: (trustProxy, fixedRoutes) =>
        serverRequests(telemetry, { trustProxy, propagator, fixedRoutes: new Set(fixedRoutes) }),
    },
    listen: async () => {
      if (!config.prometheus || !otel.prometheusHandler) return undefined;
      if (!listener) {
        listener = await listenForPrometheus(otel.prometheusHandler, config.prometheus.port, config.prometheus.host);
        configuration.logger.info({ url: listener.url }, `Prometheus metrics at ${listener.url}`);
      }
      return listener.url;
    },
    close: async () => {
      await listener?.close();
      await otel.shutdown();
    },
  };
}
