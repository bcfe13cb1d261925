import type { MultiValuedAttribute } from '../../domain/directory/directory-filter.js';

/**
 * How an attribute compares: `text` without regard to letter case, `exact` with it
 * (externalId, as directory-filter.ts says), `id` one of our ids, `boolean`, `time` an
 * instant. Each store's dialect (filter-compiler.ts) says how it keeps and compares each kind.
 */
export type Kind = 'text' | 'exact' | 'id' | 'boolean' | 'time';

export interface Column {
  sql: string;
  kind: Kind;
  /** For `text`: a column holding the value already folded (indexed), in place of folding `sql` row by row. */
  folded?: string;
}

/** A multi-valued attribute's elements, as the rows an EXISTS ranges over (`alias` is one element). */
export interface Elements {
  /** The FROM, and the WHERE (if any) that keeps an element of this row. */
  from(alias: string): { from: string; where?: string };
  columns(alias: string): Record<string, Column>;
}

/** What a filter may name in one table: the row's columns, and the elements of its multi-valued attributes. */
export interface Schema {
  columns: Record<string, Column>;
  elements: Partial<Record<MultiValuedAttribute, Elements>>;
}

/** A user's or a group's id and times, which both stores keep in columns of these names (`r` is the row). */
export const META_COLUMNS: Record<string, Column> = {
  id: { sql: 'r.id', kind: 'id' },
  'meta.created': { sql: 'r.created', kind: 'time' },
  'meta.lastModified': { sql: 'r.last_modified', kind: 'time' },
};
