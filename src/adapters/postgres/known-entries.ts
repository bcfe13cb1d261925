import { hash } from 'node:crypto';
import type { CatalogEntry } from '../../application/ports/connection-catalog.js';
import { idOf } from './catalog-queries.js';

/** What a look at some entries found changed since they were last reported. */
export interface EntryChanges {
  /** Entries new or different, to be declared. */
  changed: CatalogEntry[];
  /** Ids reported before and no longer in the catalog. */
  removed: string[];
}

/**
 * The entries last reported to the registry, by id, each as a digest of what was read (its
 * name, keys, domains, version and time): a look at the catalog reports only what differs,
 * so a full read after a reconnect costs the registry nothing for the entries that did not
 * change, and a notification for a row written again unchanged reports nothing. An entry is
 * digested when first compared, not when read: a start reading ten thousand entries does
 * not wait for their digests.
 */
export class KnownEntries {
  readonly #digests = new Map<string, string | CatalogEntry>();

  /** Every entry as read now: what is known from now on. */
  replaceAll(entries: readonly CatalogEntry[]): void {
    this.#digests.clear();
    for (const entry of entries) this.#digests.set(idOf(entry.name), entry);
  }

  /** The whole catalog as read now, against what is known (applied: call `accept` once reported). */
  compareAll(entries: readonly CatalogEntry[]): EntryChanges {
    const present = new Set(entries.map((entry) => idOf(entry.name)));
    return {
      changed: entries.filter((entry) => this.#digestOf(idOf(entry.name)) !== digestOf(entry)),
      removed: [...this.#digests.keys()].filter((id) => !present.has(id)),
    };
  }

  /** These ids' entries as read now (the absent ones removed), against what is known. */
  compareSome(ids: readonly string[], entries: readonly CatalogEntry[]): EntryChanges {
    const present = new Set(entries.map((entry) => idOf(entry.name)));
    return {
      changed: entries.filter((entry) => this.#digestOf(idOf(entry.name)) !== digestOf(entry)),
      removed: ids.filter((id) => !present.has(id) && this.#digests.has(id)),
    };
  }

  /** The digest of the entry known by `id`, made now if it was not yet. */
  #digestOf(id: string): string | undefined {
    const known = this.#digests.get(id);
    if (known === undefined || typeof known === 'string') return known;
    const digest = digestOf(known);
    this.#digests.set(id, digest);
    return digest;
  }

  /** The changes were reported: they are what is known now. */
  accept(changes: EntryChanges): void {
    for (const id of changes.removed) this.#digests.delete(id);
    for (const entry of changes.changed) this.#digests.set(idOf(entry.name), digestOf(entry));
  }
}

function digestOf(entry: CatalogEntry): string {
  const { name, keys, domains, version, updatedAt } = entry;
  // One call, no Hash object: a start reading ten thousand entries digests each.
  return hash('sha256', JSON.stringify([name, keys, domains, version, updatedAt]), 'base64');
}
