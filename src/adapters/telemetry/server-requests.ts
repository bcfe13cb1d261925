import {
  context,
  defaultTextMapGetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type TextMapPropagator,
} from '@opentelemetry/api';
import type { Context, Middleware } from 'koa';
import type { OtelTelemetry } from './otel-telemetry.js';

/** HTTP methods as the semantic conventions name them; any other is `_OTHER` (a client's text is no attribute). */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE']);

/**
 * The outermost middleware when telemetry is on: one server span per request (made the
 * active span, so the log lines, audit events, store calls and provider requests below are
 * its children or carry its ids) and one `http.server.request.duration` measurement. The
 * route is the template the router matched (`/Account/Sessions/:id`), a provider's path as
 * configured or a connection's template (`/connections/:name/signin-oidc`, set by the
 * authentication middleware), never the path as sent: every value comes from a set fixed
 * at start, and a request no route matched has none (one series for all of them). An incoming `traceparent` is followed only when
 * `Hosting:TrustProxy` says a proxy we trust sits in front: anyone else's would let a
 * client pick the trace its requests are filed under.
 */
export function serverRequests(
  telemetry: OtelTelemetry,
  options: {
    trustProxy: boolean;
    propagator: TextMapPropagator;
    /** Paths answered before any router (the probes): each its own route. */
    fixedRoutes: ReadonlySet<string>;
  },
): Middleware {
  const { tracer } = telemetry;
  if (!telemetry.tracing) return requestDurations(telemetry, options.fixedRoutes);
  return async function serverRequest(ctx, next) {
    const started = performance.now();
    const method = methodOf(ctx);
    const parent = options.trustProxy
      ? options.propagator.extract(ROOT_CONTEXT, ctx.headers, defaultTextMapGetter)
      : ROOT_CONTEXT;
    const span = tracer.startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
      parent,
    );
    try {
      // A request the sampler left out keeps no context across its awaits (which costs every
      // await of the request): nothing under it would be recorded, and its log lines carry no
      // ids of a trace that is not kept.
      if (span.isRecording()) {
        const { traceId, spanId } = span.spanContext();
        ctx.state.trace = { traceId, spanId };
        await context.with(trace.setSpan(parent, span), next);
      } else await next();
    } finally {
      const route = routeOf(ctx, options.fixedRoutes);
      const attributes = requestAttributes(method, ctx.status, route);
      span.setAttributes(attributes);
      if (route !== undefined) span.updateName(`${method} ${route}`);
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      telemetry.adapterDuration('http.server.request.duration', (performance.now() - started) / 1000, attributes);
    }
  };
}

/** Traces off: the request's duration alone, with no span to start or context to read. */
function requestDurations(telemetry: OtelTelemetry, fixedRoutes: ReadonlySet<string>): Middleware {
  return async function requestDuration(ctx, next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      const attributes = requestAttributes(methodOf(ctx), ctx.status, routeOf(ctx, fixedRoutes));
      telemetry.adapterDuration('http.server.request.duration', (performance.now() - started) / 1000, attributes);
    }
  };
}

function methodOf(ctx: Context): string {
  return KNOWN_METHODS.has(ctx.method) ? ctx.method : '_OTHER';
}

/** The semantic conventions' attributes of a request: a request no route matched has no `http.route`. */
function requestAttributes(method: string, status: number, route: string | undefined): Attributes {
  return route === undefined
    ? { 'http.request.method': method, 'http.response.status_code': status }
    : { 'http.request.method': method, 'http.response.status_code': status, 'http.route': route };
}

function routeOf(ctx: Context, fixedRoutes: ReadonlySet<string>): string | undefined {
  const matched: unknown = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  if (typeof matched === 'string') return matched;
  return ctx.state.route ?? (fixedRoutes.has(ctx.path) ? ctx.path : undefined);
}
