import type { AttributeValue, Attributes, Meter, ObservableResult } from '@opentelemetry/api';

/**
 * Series a counter exports at most, the overflow set included: the SDK's own default limit
 * (it would fold any further ones itself, at collection, into a set of its own).
 */
export const COUNTER_CARDINALITY_LIMIT = 2_000;
/** The OpenTelemetry specification's attribute of the set past the cardinality limit. */
export const OVERFLOW_ATTRIBUTE = 'otel.metric.overflow';

interface Total {
  attributes: Attributes;
  value: number;
}

/**
 * A counter whose totals are kept here, one per attribute set, and handed to the SDK only
 * when a reader collects (an observable counter: a monotonic cumulative sum, exported
 * exactly as the SDK's own counter is, `_total` in Prometheus, a Sum over OTLP). Adding is
 * a string key and a map lookup. The SDK's counter sorts and serializes the attributes on
 * every add, and an authorization decision is counted on every request
 * (docs/performance.md, Telemetry).
 */
export class CumulativeCounter {
  readonly #totals = new Map<string, Total>();
  #overflow: Total | undefined;

  constructor(meter: Meter, name: string, description: string) {
    meter.createObservableCounter(name, { description }).addCallback((result) => this.#observe(result));
  }

  add(attributes: Attributes): void {
    // Each call site names its attributes in one order: the key is their values in that order.
    let key = '';
    for (const name in attributes) {
      const value = attributes[name];
      if (value !== undefined) key += `${name}\u0001${String(value)}\u0002`;
    }
    const total = this.#totals.get(key);
    if (total) total.value += 1;
    else if (this.#totals.size < COUNTER_CARDINALITY_LIMIT - 1)
      this.#totals.set(key, { attributes: defined(attributes), value: 1 });
    else (this.#overflow ??= { attributes: { [OVERFLOW_ATTRIBUTE]: true }, value: 0 }).value += 1;
  }

  /**
   * One observation per attribute set. Two call sites naming one set in different orders
   * made two keys: their totals are summed here, since a set observed twice would keep
   * only the last.
   */
  #observe(result: ObservableResult): void {
    const sets = new Map<string, Total>();
    for (const total of this.#totals.values()) {
      const key = sortedKey(total.attributes);
      const seen = sets.get(key);
      if (seen) seen.value += total.value;
      else sets.set(key, { ...total });
    }
    if (this.#overflow) sets.set(OVERFLOW_ATTRIBUTE, this.#overflow);
    for (const { attributes, value } of sets.values()) result.observe(value, attributes);
  }
}

function defined(attributes: Attributes): Attributes {
  const copy: Record<string, AttributeValue> = {};
  for (const name in attributes) {
    const value = attributes[name];
    if (value !== undefined) copy[name] = value;
  }
  return copy;
}

function sortedKey(attributes: Attributes): string {
  return JSON.stringify(
    Object.keys(attributes)
      .sort()
      .map((name) => [name, attributes[name]]),
  );
}
