import type { ComparisonOperator, FilterValue } from './directory-filter.js';
import { ScimError, type ScimType } from './scim-error.js';

/**
 * The grammar of SCIM filters and PATCH paths (RFC 7644 3.4.2.2 and 3.5.2), read into a tree
 * whose attribute paths are still the client's text: which attributes exist is the reader's
 * concern (scim-filter.ts for queries, the PATCH appliers for paths).
 *
 * Written here rather than taken from the npm package `scim2-parse-filter`, for three reasons:
 * the domain layer uses no package at all (test/unit/architecture.test.ts); that package's
 * tokenizer backtracks exponentially on an unclosed string holding line breaks (26 of them
 * took 0.3 s in version 0.2.10, and each 2 more quadruple it, well inside a 1,024-character
 * filter); and it decodes escapes wrongly (`"a\\b"` became two backslashes, `"\u0041"` stayed
 * as written). This reader is one linear pass, and stops at the limits below before doing
 * more work than they allow.
 */
export type FilterSyntax =
  | { kind: 'logical'; op: 'and' | 'or'; filters: FilterSyntax[] }
  | { kind: 'not'; filter: FilterSyntax }
  | { kind: 'present'; path: string }
  | { kind: 'compare'; op: ComparisonOperator; path: string; value: FilterValue }
  /** `path[filter]`: one value of the multi-valued attribute `path` must match `filter`. */
  | { kind: 'valuePath'; path: string; filter: FilterSyntax };

/** A PATCH operation's target (RFC 7644 3.5.2: `PATH = attrPath / valuePath [subAttr]`). */
export interface PathSyntax {
  /** As written, possibly qualified by a schema URN: `emails`, `name.givenName`, `urn:...:User:manager`. */
  attribute: string;
  /** The value filter, for `emails[type eq "work"]`. */
  filter?: FilterSyntax;
  /** The sub-attribute after a value filter: `value` in `emails[type eq "work"].value`. */
  subAttribute?: string;
}

/** Longer text is refused before it is read. */
export const MAX_FILTER_LENGTH = 1024;
/** Parentheses, `not ( )` and value filters inside one another. */
export const MAX_FILTER_DEPTH = 8;
/** Comparisons (`pr` included) in one filter. */
export const MAX_FILTER_COMPARISONS = 32;

const comparisonOperators: ReadonlySet<string> = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);
/** RFC 7644 3.4.2.2 `ATTRNAME *1subAttr`, optionally after a URN; `$ref` is an attribute name too. */
const attributePathPattern =
  /^(?:[A-Za-z][A-Za-z0-9._:-]*:)?(?:[A-Za-z$][A-Za-z0-9_$-]*)(?:\.[A-Za-z$][A-Za-z0-9_$-]*)?$/;
/** `.value` after a value filter (RFC 7644 3.5.2 `valuePath [subAttr]`). */
const subAttributePattern = /^\.[A-Za-z$][A-Za-z0-9_$-]*$/;
const jsonNumberPattern = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

type Token =
  | { kind: 'word'; text: string; at: number }
  | { kind: 'string'; value: string; at: number }
  | { kind: '(' | ')' | '[' | ']' | 'end'; at: number };

/** Reads a filter (`?filter=`, or the `filter` of a search). Errors are 400 `invalidFilter`. */
export function parseFilterSyntax(text: string): FilterSyntax {
  return new Parser(text, 'invalidFilter', 'filter').readWholeFilter();
}

/** Reads a PATCH `path`. Errors are 400 `invalidPath`. */
export function parsePathSyntax(text: string): PathSyntax {
  return new Parser(text, 'invalidPath', 'path').readWholePath();
}

class Parser {
  private readonly tokens: Token[];
  private position = 0;
  private depth = 0;
  private comparisons = 0;

  constructor(
    private readonly text: string,
    private readonly scimType: ScimType,
    private readonly what: 'filter' | 'path',
  ) {
    if (text.length > MAX_FILTER_LENGTH) {
      throw this.refuse(`The ${what} is longer than ${MAX_FILTER_LENGTH} characters.`);
    }
    this.tokens = this.tokenize();
  }

  readWholeFilter(): FilterSyntax {
    const filter = this.readOr(false);
    this.expect('end');
    return filter;
  }

  readWholePath(): PathSyntax {
    const first = this.next();
    if (first.kind !== 'word' || !attributePathPattern.test(first.text)) {
      throw this.refuse('The path must start with an attribute name.');
    }
    const path: PathSyntax = { attribute: first.text };
    if (this.peek().kind === '[') {
      path.filter = this.readValueFilter();
      const after = this.peek();
      if (after.kind === 'word' && subAttributePattern.test(after.text)) {
        this.position += 1;
        path.subAttribute = after.text.slice(1);
      }
    }
    this.expect('end');
    return path;
  }

  /** `or` binds loosest (RFC 7644 3.4.2.2: precedence is not, and, or). */
  private readOr(inValueFilter: boolean): FilterSyntax {
    const filters = [this.readAnd(inValueFilter)];
    while (this.peekKeyword('or')) {
      this.position += 1;
      filters.push(this.readAnd(inValueFilter));
    }
    return filters.length === 1 && filters[0] ? filters[0] : { kind: 'logical', op: 'or', filters };
  }

  private readAnd(inValueFilter: boolean): FilterSyntax {
    const filters = [this.readUnary(inValueFilter)];
    while (this.peekKeyword('and')) {
      this.position += 1;
      filters.push(this.readUnary(inValueFilter));
    }
    return filters.length === 1 && filters[0] ? filters[0] : { kind: 'logical', op: 'and', filters };
  }

  private readUnary(inValueFilter: boolean): FilterSyntax {
    if (this.peekKeyword('not')) {
      this.position += 1;
      // RFC 7644 3.4.2.2: `not` is always followed by a parenthesised filter.
      if (this.peek().kind !== '(') throw this.refuse('"not" must be followed by a filter in parentheses.');
      return { kind: 'not', filter: this.readGroup(inValueFilter) };
    }
    if (this.peek().kind === '(') return this.readGroup(inValueFilter);
    return this.readAttributeExpression(inValueFilter);
  }

  private readGroup(inValueFilter: boolean): FilterSyntax {
    this.expect('(');
    this.enter();
    const filter = this.readOr(inValueFilter);
    this.expect(')');
    this.depth -= 1;
    return filter;
  }

  private readAttributeExpression(inValueFilter: boolean): FilterSyntax {
    const token = this.next();
    if (token.kind !== 'word' || !attributePathPattern.test(token.text)) {
      throw this.refuse(`Expected an attribute name at character ${token.at + 1}.`);
    }
    const path = token.text;
    if (this.peek().kind === '[') {
      // RFC 7644 3.4.2.2: a value filter holds comparisons of sub-attributes, never another value filter.
      if (inValueFilter) throw this.refuse('A value filter cannot hold another value filter.');
      const filter = this.readValueFilter();
      const after = this.peek();
      if (after.kind === 'word' && subAttributePattern.test(after.text)) {
        // Entra ID finds users by `emails[type eq "work"].value eq "..."` (its SCIM tutorial asks
        // for it): outside RFC 7644's grammar, and read as the value filter it means,
        // `emails[type eq "work" and value eq "..."]`.
        this.position += 1;
        const condition = this.readComparison(after.text.slice(1));
        return { kind: 'valuePath', path, filter: { kind: 'logical', op: 'and', filters: [filter, condition] } };
      }
      return { kind: 'valuePath', path, filter };
    }
    return this.readComparison(path);
  }

  /** The operator and value after an attribute path: a comparison, or `pr`. */
  private readComparison(path: string): FilterSyntax {
    const operator = this.next();
    const op = operator.kind === 'word' ? operator.text.toLowerCase() : '';
    this.comparisons += 1;
    if (this.comparisons > MAX_FILTER_COMPARISONS) {
      throw this.refuse(`The ${this.what} holds more than ${MAX_FILTER_COMPARISONS} comparisons.`);
    }
    if (op === 'pr') return { kind: 'present', path };
    if (!isComparisonOperator(op)) {
      throw this.refuse(
        `Expected an operator (eq, ne, co, sw, ew, gt, ge, lt, le, pr) at character ${operator.at + 1}.`,
      );
    }
    return { kind: 'compare', op, path, value: this.readValue() };
  }

  private readValueFilter(): FilterSyntax {
    this.expect('[');
    this.enter();
    const filter = this.readOr(true);
    this.expect(']');
    this.depth -= 1;
    return filter;
  }

  /** RFC 7644 3.4.2.2 `compValue = false / null / true / number / string`, as JSON spells them. */
  private readValue(): FilterValue {
    const token = this.next();
    if (token.kind === 'string') return token.value;
    if (token.kind === 'word') {
      const word = token.text.toLowerCase();
      if (word === 'true') return true;
      if (word === 'false') return false;
      if (word === 'null') return null;
      if (jsonNumberPattern.test(token.text)) {
        const number = Number(token.text);
        if (Number.isFinite(number)) return number;
      }
    }
    throw this.refuse(
      `Expected a value (a quoted string, a number, true, false or null) at character ${token.at + 1}.`,
    );
  }

  private enter(): void {
    this.depth += 1;
    if (this.depth > MAX_FILTER_DEPTH) {
      throw this.refuse(`The ${this.what} is nested more than ${MAX_FILTER_DEPTH} deep.`);
    }
  }

  private peek(): Token {
    return this.tokens[this.position] ?? { kind: 'end', at: this.text.length };
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.position += 1;
    return token;
  }

  private peekKeyword(keyword: 'and' | 'or' | 'not'): boolean {
    const token = this.peek();
    return token.kind === 'word' && token.text.toLowerCase() === keyword;
  }

  private expect(kind: '(' | ')' | '[' | ']' | 'end'): void {
    const token = this.next();
    if (token.kind !== kind) {
      const wanted = kind === 'end' ? 'the end' : `"${kind}"`;
      throw this.refuse(`Expected ${wanted} at character ${token.at + 1}.`);
    }
  }

  /** One pass over the text; strings are decoded by JSON's own rules (RFC 7644 3.4.2.2 uses JSON strings). */
  private tokenize(): Token[] {
    const text = this.text;
    const tokens: Token[] = [];
    let at = 0;
    while (at < text.length) {
      const char = text.charAt(at);
      if (char === ' ' || char === '\t') {
        at += 1;
      } else if (char === '(' || char === ')' || char === '[' || char === ']') {
        tokens.push({ kind: char, at });
        at += 1;
      } else if (char === '"') {
        let end = at + 1;
        while (end < text.length && text.charAt(end) !== '"') end += text.charAt(end) === '\\' ? 2 : 1;
        if (end >= text.length) throw this.refuse(`The string starting at character ${at + 1} is not closed.`);
        tokens.push({ kind: 'string', value: this.decodeString(text.slice(at, end + 1), at), at });
        at = end + 1;
      } else if (/[\u0000-\u001f\u007f]/.test(char)) {
        throw this.refuse(`The ${this.what} holds a control character at character ${at + 1}.`);
      } else {
        let end = at;
        while (end < text.length && !/[\s()[\]"\u0000-\u001f\u007f]/.test(text.charAt(end))) end += 1;
        tokens.push({ kind: 'word', text: text.slice(at, end), at });
        at = end;
      }
    }
    return tokens;
  }

  private decodeString(quoted: string, at: number): string {
    try {
      const value: unknown = JSON.parse(quoted);
      if (typeof value === 'string') return value;
    } catch {
      // Refused below, without JSON's message (which quotes the text).
    }
    throw this.refuse(`The string starting at character ${at + 1} is not a valid JSON string.`);
  }

  private refuse(detail: string): ScimError {
    return new ScimError(this.scimType, detail);
  }
}

function isComparisonOperator(op: string): op is ComparisonOperator {
  return comparisonOperators.has(op);
}
