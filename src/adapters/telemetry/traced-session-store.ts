import type { SessionStore } from '../../application/ports/session-store.js';
import { SpanKind, type OtelTelemetry } from './otel-telemetry.js';

/** The port's operations: each is timed and gets a span; anything else the store has (ping, close) passes through. */
const OPERATIONS: ReadonlySet<string | symbol> = new Set<keyof SessionStore>([
  'get',
  'create',
  'replace',
  'destroy',
  'take',
  'increment',
  'addToIndex',
  'indexMembers',
  'removeFromIndex',
]);

/**
 * The same store, each operation a child span (`session_store.<operation>`) and one
 * measurement of `gatehouse.session_store.operation.duration` with the store's role
 * (`sessions`, `pending_sign_ins`, `replay_records`), the operation and its outcome. Keys
 * and records are never attributes. Wrapped only when telemetry is on and the store is
 * across the network (Redis): otherwise the store is the store.
 */
export function tracedSessionStore<Store extends SessionStore>(
  store: Store,
  role: string,
  telemetry: OtelTelemetry,
): Store {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (!OPERATIONS.has(property)) return value.bind(target);
      const operation = String(property);
      return (...args: unknown[]) =>
        telemetry.measure(
          {
            name: `session_store.${operation}`,
            kind: SpanKind.CLIENT,
            attributes: { store: role, operation },
          },
          'gatehouse.session_store.operation.duration',
          () => Promise.resolve(value.apply(target, args)),
        );
    },
  });
}
