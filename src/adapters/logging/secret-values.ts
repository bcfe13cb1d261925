import { REDACTED } from './redaction.js';

/**
 * Secrets shorter than this are redacted only where they are a whole string value (a
 * field or message equal to one): inside longer text they would cut ordinary words out of
 * every line. From this length on, a string value holding one anywhere has it replaced.
 * The empty string is no secret.
 */
export const SHORTEST_CONTAINED_SECRET = 6;
/**
 * Up to this many secrets, a string is searched for each in turn; beyond it (a deployment
 * whose connections bring a client secret each), for all at once (`findsAnyOf`).
 */
const SEARCHED_ONE_BY_ONE = 8;

/** Replaces the configured secrets in what a log line is made of, before it is written as JSON. */
export interface SecretValueRedactor {
  /**
   * The fields with every string (value or key, at any depth) that is or holds a secret
   * replaced. The caller's object is never changed: only the objects on the way to a
   * replaced string are copied, and fields holding none are returned as they came.
   */
  fields(fields: object): object;
  /** The text (a line's message) with the secrets replaced. */
  text(value: string): string;
}

/**
 * The redactor of `secrets`, or undefined when there is none. It works on values, never on
 * the serialized line: whatever a secret looks like (`"audit":true`, a brace, a quote, a
 * backslash), the line is serialized after it is replaced, so it stays one valid JSON
 * object and the fields around a secret keep their names and values.
 */
export function secretValueRedactor(secrets: Iterable<string>): SecretValueRedactor | undefined {
  const whole = new Set([...secrets].filter((secret) => secret !== ''));
  if (whole.size === 0) return undefined;
  // Longest first: a secret holding another is replaced whole, not around the shorter one.
  const contained = [...whole].filter((secret) => secret.length >= SHORTEST_CONTAINED_SECRET);
  contained.sort((a, b) => b.length - a.length);
  const replaceEach = (value: string) => {
    let result = value;
    for (const secret of contained) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    return result;
  };
  const holdsAny = contained.length > SEARCHED_ONE_BY_ONE ? findsAnyOf(contained) : undefined;
  const text = (value: string): string => {
    if (whole.has(value)) return REDACTED;
    if (value.length < SHORTEST_CONTAINED_SECRET || contained.length === 0) return value;
    return holdsAny === undefined || holdsAny(value) ? replaceEach(value) : value;
  };

  // What JSON.stringify would write for `value`, with its strings replaced; `ancestors`
  // stops a circular structure (JSON.stringify then refuses it, and the line says so).
  const redact = (value: unknown, ancestors: object[]): unknown => {
    if (typeof value === 'string') return text(value);
    if (typeof value !== 'object' || value === null || ancestors.includes(value)) return value;
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') {
      // A Date, a URL, a Buffer: JSON.stringify writes what toJSON gives, so that is what is redacted.
      const json: unknown = toJSON.call(value, '');
      const redacted =
        typeof json === 'object' && json !== null ? redactMembers(json, ancestors) : redact(json, ancestors);
      return redacted === json ? value : redacted;
    }
    return redactMembers(value, ancestors);
  };
  const redactMembers = (value: object, ancestors: object[]): object => {
    ancestors.push(value);
    try {
      if (Array.isArray(value)) {
        let copy: unknown[] | undefined;
        for (let index = 0; index < value.length; index++) {
          const replacement = redact(value[index], ancestors);
          if (replacement === value[index]) continue;
          copy ??= [...(value as unknown[])];
          copy[index] = replacement;
        }
        return copy ?? value;
      }
      let copy: Record<string, unknown> | undefined;
      const names = Object.keys(value);
      for (let index = 0; index < names.length; index++) {
        const name = names[index]!;
        const current = (value as Record<string, unknown>)[name];
        const replacement = redact(current, ancestors);
        const newName = text(name);
        if (replacement === current && newName === name) continue;
        if (copy === undefined) {
          // The members before this one, as they were, then this one and the rest in order.
          copy = {};
          for (const earlier of names.slice(0, index)) copy[earlier] = (value as Record<string, unknown>)[earlier];
        }
        copy[newName] = replacement;
        for (const later of names.slice(index + 1)) {
          const laterValue = (value as Record<string, unknown>)[later];
          copy[text(later)] = redact(laterValue, ancestors);
        }
        break;
      }
      return copy ?? value;
    } finally {
      ancestors.pop();
    }
  };
  return { fields: (fields) => redact(fields, []) as object, text };
}

const HASH_BASE = 31;
/** HASH_BASE to the power SHORTEST_CONTAINED_SECRET - 1, in 32-bit arithmetic: the weight of a window's first character. */
const FIRST_WEIGHT = HASH_BASE ** (SHORTEST_CONTAINED_SECRET - 1);

/**
 * Whether a string holds any of `needles` (each at least SHORTEST_CONTAINED_SECRET
 * characters), in one pass whatever their number (Rabin-Karp): a rolling hash of each
 * SHORTEST_CONTAINED_SECRET characters, looked up among the hashes of the needles' first
 * SHORTEST_CONTAINED_SECRET characters, a hit confirmed by comparing. With a thousand
 * connections' secrets, searching for each in turn cost every request's log line more
 * than the rest of the request (docs/performance.md).
 */
function findsAnyOf(needles: readonly string[]): (text: string) => boolean {
  const byHead = new Map<number, string[]>();
  for (const needle of needles) {
    const head = windowHash(needle, 0);
    byHead.set(head, [...(byHead.get(head) ?? []), needle]);
  }
  return (text) => {
    if (text.length < SHORTEST_CONTAINED_SECRET) return false;
    let hash = windowHash(text, 0);
    for (let start = 0; ; start++) {
      const candidates = byHead.get(hash);
      if (candidates !== undefined && candidates.some((needle) => text.startsWith(needle, start))) return true;
      const next = start + SHORTEST_CONTAINED_SECRET;
      if (next >= text.length) return false;
      hash = (Math.imul(hash - Math.imul(text.charCodeAt(start), FIRST_WEIGHT), HASH_BASE) + text.charCodeAt(next)) | 0;
    }
  };
}

/** The hash of the SHORTEST_CONTAINED_SECRET characters of `text` from `start`, in 32-bit arithmetic. */
function windowHash(text: string, start: number): number {
  let hash = 0;
  for (let index = start; index < start + SHORTEST_CONTAINED_SECRET; index++) {
    hash = (Math.imul(hash, HASH_BASE) + text.charCodeAt(index)) | 0;
  }
  return hash;
}
