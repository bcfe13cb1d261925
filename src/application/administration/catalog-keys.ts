import { normalizeDomainPattern } from '../../domain/connections/email-domain.js';
import type { CatalogEntry } from '../ports/connection-catalog.js';

/* What a write changes in a connection's keys: its domains as stored, and the names of the keys it touched. */

export function normalizedDomains(value: unknown): string[] {
  const entries = Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
  return [...new Set(entries.map((entry) => normalizeDomainPattern(entry) ?? entry))];
}

/** The domains of `after` that `before` did not have. */
export function added(before: CatalogEntry | undefined, after: CatalogEntry | undefined): string[] {
  const had = new Set(normalizedDomains(before?.keys.Domains));
  return normalizedDomains(after?.keys.Domains).filter((domain) => !had.has(domain));
}

/** The keys set, changed or removed between two versions: a sealed secret counts as changed whenever it was given again. */
export function changedKeys(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key])).sort();
}
