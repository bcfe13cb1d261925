import type {
  ComparisonOperator,
  DirectoryFilter,
  FilterValue,
  MultiValuedAttribute,
} from '../../domain/directory/directory-filter.js';
import { isOurId } from './directory-rows.js';
import type { Column, Elements, Schema } from './filter-schema.js';

/**
 * The SQL one store writes where the stores differ: its string comparisons, how it reads
 * ids, booleans and times, and its index of e-mails. Each function adds its values as the
 * statement's parameters (values never enter the SQL text) and answers SQL true, false or
 * NULL (the attribute absent).
 */
export interface FilterDialect {
  /** A `text` or `exact` column equal to a string, or containing it, starting or ending with it. */
  matchStrings(column: Column, op: StringMatch, value: string): string;
  /** A `text` or `exact` column ordered (`operator`: `<`, `<=`, `>` or `>=`) against a string. */
  orderStrings(column: Column, operator: string, value: string): string;
  /** An `id` column equal to one of our ids. */
  idEquals(sql: string, id: string): string;
  /** An `id` column as the text the string comparisons compare (`exact`), for the operators other than `eq`. */
  idAsText(sql: string): string;
  booleanEquals(sql: string, value: boolean): string;
  /** A `time` column compared (`operator`: `=` or an ordering) with an instant in milliseconds since the epoch. */
  compareTime(sql: string, operator: string, at: number): string;
  /** The users holding the e-mail `value` (letter case aside), through the store's index of e-mails. */
  hasEmail(value: string): string;
  /** A value filter's EXISTS (`emails[...]`, `members[...]`) as the store runs it best; as it is if absent. */
  valueFilter?(attribute: MultiValuedAttribute, filter: DirectoryFilter<string>, exists: string): string;
}

/** The string comparisons other than the orderings. */
export type StringMatch = 'eq' | 'co' | 'sw' | 'ew';

const ORDERING: Partial<Record<ComparisonOperator, string>> = { gt: '>', ge: '>=', lt: '<', le: '<=' };

/** The WHERE condition of `filter` on the table `schema` describes, in the store's `dialect`. */
export function compileFilter(filter: DirectoryFilter<string>, schema: Schema, dialect: FilterDialect): string {
  return new FilterCompiler(schema, dialect).compile(filter, {});
}

/**
 * Translates a filter. A comparison whose attribute is absent is NULL in SQL, which WHERE
 * takes as false, and so do AND and OR; only NOT would turn it the wrong way, so a NOT
 * (and `ne`, which is one) reads NULL as false first: `not (title eq "x")` matches a user
 * with no title, as SCIM means.
 */
class FilterCompiler {
  #aliases = 0;

  constructor(
    private readonly schema: Schema,
    private readonly dialect: FilterDialect,
  ) {}

  /** `scope`: the element columns of the `has` being compiled (`emails[type eq "work"]`). */
  compile(filter: DirectoryFilter<string>, scope: Record<string, Column>): string {
    switch (filter.op) {
      case 'and':
      case 'or': {
        if (filter.filters.length === 0) return filter.op === 'and' ? 'TRUE' : 'FALSE';
        const joiner = filter.op === 'and' ? ' AND ' : ' OR ';
        return `(${filter.filters.map((inner) => this.compile(inner, scope)).join(joiner)})`;
      }
      case 'not':
        return `NOT COALESCE(${this.compile(filter.filter, scope)}, FALSE)`;
      case 'has':
        return this.#has(filter.attribute, filter.filter, scope);
      case 'pr':
        return this.#attribute(filter.attribute, scope, (column) => present(column));
      default:
        return this.#comparison(filter.attribute, filter.op, filter.value, scope);
    }
  }

  #comparison(attribute: string, op: ComparisonOperator, value: FilterValue, scope: Record<string, Column>): string {
    // `emails.value eq` outside a value filter: the store's index of e-mails.
    if (attribute === 'emails.value' && op === 'eq' && typeof value === 'string' && !scope[attribute]) {
      if (this.schema.elements.emails) return this.dialect.hasEmail(value);
    }
    if (op === 'ne') return `NOT COALESCE(${this.#comparison(attribute, 'eq', value, scope)}, FALSE)`;
    return this.#attribute(attribute, scope, (column) => this.#compare(column, op, value));
  }

  /** The condition on `attribute`: a column of the row or of the `has` element, else any element (EXISTS). */
  #attribute(attribute: string, scope: Record<string, Column>, condition: (column: Column) => string): string {
    const column = scope[attribute] ?? this.schema.columns[attribute];
    if (column) return condition(column);
    const [multi] = attribute.split('.');
    const elements = multi === 'emails' || multi === 'members' ? this.schema.elements[multi] : undefined;
    const alias = this.#alias();
    const inner = elements?.columns(alias)[attribute];
    if (!elements || !inner) return 'FALSE';
    return exists(elements, alias, condition(inner));
  }

  #has(attribute: MultiValuedAttribute, filter: DirectoryFilter<string>, scope: Record<string, Column>): string {
    const elements = this.schema.elements[attribute];
    if (!elements) return 'FALSE';
    const alias = this.#alias();
    const condition = exists(elements, alias, this.compile(filter, { ...scope, ...elements.columns(alias) }));
    return this.dialect.valueFilter?.(attribute, filter, condition) ?? condition;
  }

  /** A comparison other than `ne`: SQL true, false or NULL (the attribute absent). */
  #compare(column: Column, op: ComparisonOperator, value: FilterValue): string {
    if (value === null) return op === 'eq' ? `${column.sql} IS NULL` : 'FALSE';
    switch (column.kind) {
      case 'text':
      case 'exact':
        return typeof value === 'string' ? this.#compareStrings(column, op, value) : 'FALSE';
      case 'id':
        if (typeof value !== 'string') return 'FALSE';
        if (op === 'eq') return isOurId(value) ? this.dialect.idEquals(column.sql, value) : 'FALSE';
        return this.#compareStrings({ sql: this.dialect.idAsText(column.sql), kind: 'exact' }, op, value);
      case 'boolean':
        return typeof value === 'boolean' && op === 'eq' ? this.dialect.booleanEquals(column.sql, value) : 'FALSE';
      case 'time': {
        const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
        const operator = ORDERING[op] ?? (op === 'eq' ? '=' : undefined);
        if (Number.isNaN(at) || !operator) return 'FALSE';
        return this.dialect.compareTime(column.sql, operator, at);
      }
    }
  }

  #compareStrings(column: Column, op: ComparisonOperator, value: string): string {
    if (op === 'eq' || op === 'co' || op === 'sw' || op === 'ew') return this.dialect.matchStrings(column, op, value);
    const operator = ORDERING[op];
    return operator ? this.dialect.orderStrings(column, operator, value) : 'FALSE';
  }

  #alias(): string {
    this.#aliases += 1;
    return `e${this.#aliases}`;
  }
}

function exists(elements: Elements, alias: string, condition: string): string {
  const { from, where } = elements.from(alias);
  return `EXISTS (SELECT 1 FROM ${from} WHERE ${where ? `${where} AND ` : ''}(${condition}))`;
}

/** `pr`: has a value, and a string's is not empty. */
function present(column: Column): string {
  return column.kind === 'text' || column.kind === 'exact'
    ? `(${column.sql} IS NOT NULL AND ${column.sql} <> '')`
    : `${column.sql} IS NOT NULL`;
}
