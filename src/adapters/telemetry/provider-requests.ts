import { context, defaultTextMapSetter, type TextMapPropagator } from '@opentelemetry/api';
import type { OutboundRequests } from '../outbound-requests.js';
import { SpanKind, type OtelTelemetry } from './otel-telemetry.js';

/**
 * The watcher of identity-provider requests when telemetry is on: each request made inside
 * a recorded span is a client span (`identity_provider.<endpoint>`, a child of the active
 * one) carrying the trace context to the provider in `traceparent`; every request is one
 * measurement of
 * `gatehouse.identity_provider.request.duration` (provider, endpoint, outcome: an answer
 * of 400 or more is a failure, as is no answer). The URL is never an attribute: a query
 * may carry a code or a token; the host is, on the span only.
 */
export function providerRequests(telemetry: OtelTelemetry, propagator: TextMapPropagator): OutboundRequests {
  return (provider) => (endpoint, url, send) =>
    telemetry.measure(
      {
        name: `identity_provider.${endpoint}`,
        kind: SpanKind.CLIENT,
        attributes: { provider, endpoint },
      },
      'gatehouse.identity_provider.request.duration',
      async (span) => {
        if (!span) return send({});
        span.setAttributes({ 'server.address': url.hostname, 'url.scheme': url.protocol.replace(':', '') });
        const headers: Record<string, string> = {};
        propagator.inject(context.active(), headers, defaultTextMapSetter);
        const response = await send(headers);
        span.setAttribute('http.response.status_code', response.status);
        return response;
      },
      (response) => (response.status >= 400 ? 'failure' : 'success'),
    );
}
