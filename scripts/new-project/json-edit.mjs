/**
 * Sets scalar values in a JSON document (adding the keys it lacks, if asked) and leaves
 * every other character as it was. The new project's `npm test` starts with `prettier
 * --check`, and the generator cannot run Prettier (from a packed tarball it has only the
 * template's dependencies), so rewriting the whole file through JSON.stringify would
 * change its layout and fail that check.
 */

/**
 * @param {string} text a JSON document
 * @param {Array<{ path: string[], value: boolean | string | number }>} edits each path names an existing key
 * @returns {string}
 * @throws {Error} when a path is not in the document (the template changed shape)
 */
export function setJsonValues(text, edits) {
  let result = text;
  for (const { path, value } of edits) {
    const span = new JsonScanner(result).locate(path);
    if (!span) throw new Error(`${path.join(':')} is not in the document`);
    result = result.slice(0, span.start) + JSON.stringify(value) + result.slice(span.end);
  }
  JSON.parse(result); // never hand back a broken document
  return result;
}

/**
 * Like setJsonValues, but a key the document lacks is added: as the last member of the
 * deepest object of its path that exists, laid out like that object's first member (on a
 * line of its own, or on the object's line), with the rest of the path as one-line objects
 * (`"Database": { "Migrate": true }`, as Prettier leaves an object written on one line).
 * @param {string} text a JSON document
 * @param {Array<{ path: string[], value: boolean | string | number }>} edits
 * @returns {string}
 * @throws {Error} when a path runs through a value that is not an object
 */
export function setOrAddJsonValues(text, edits) {
  let result = text;
  for (const { path, value } of edits) {
    const span = new JsonScanner(result).locate(path);
    if (span) {
      result = result.slice(0, span.start) + JSON.stringify(value) + result.slice(span.end);
      continue;
    }
    let depth = path.length - 1;
    while (depth > 0 && !new JsonScanner(result).locate(path.slice(0, depth))) depth--;
    const insertion = new JsonScanner(result).memberInsertion(path.slice(0, depth));
    if (!insertion) {
      throw new Error(
        `${path.join(':')} cannot be added: ${depth === 0 ? 'the document' : path.slice(0, depth).join(':')} is not an object`,
      );
    }
    const member = `${JSON.stringify(path[depth])}: ${oneLine(path.slice(depth + 1), value)}`;
    result = result.slice(0, insertion.at) + insertion.before + member + insertion.after + result.slice(insertion.at);
  }
  JSON.parse(result); // never hand back a broken document
  return result;
}

/** `value` nested in one-line objects along `path`. @param {string[]} path @param {boolean | string | number} value @returns {string} */
function oneLine(path, value) {
  const [first, ...rest] = path;
  return first === undefined ? JSON.stringify(value) : `{ ${JSON.stringify(first)}: ${oneLine(rest, value)} }`;
}

/** Just enough of a JSON reader to find where a value sits in the text. */
class JsonScanner {
  /** @param {string} text */
  constructor(text) {
    this.text = text;
    this.index = 0;
  }

  /**
   * The text span of the value at `path`, or undefined.
   * @param {string[]} path
   * @returns {{ start: number, end: number } | undefined}
   */
  locate(path) {
    for (const segment of path) {
      if (!this.enterMember(segment)) return undefined;
    }
    this.skipSpace();
    const start = this.index;
    this.skipValue();
    return { start, end: this.index };
  }

  /**
   * Where a new last member goes in the object at `path`, and what surrounds it: after the
   * last member, a comma and the space that precedes the first one; in an empty object,
   * one space on each side. Undefined when `path` is not an object.
   * @param {string[]} path
   * @returns {{ at: number, before: string, after: string } | undefined}
   */
  memberInsertion(path) {
    for (const segment of path) {
      if (!this.enterMember(segment)) return undefined;
    }
    this.skipSpace();
    if (this.text[this.index] !== '{') return undefined;
    const open = this.index++;
    this.skipSpace();
    if (this.text[this.index] === '}') return { at: open + 1, before: ' ', after: ' ' };
    const indentation = this.text.slice(open + 1, this.index);
    let end = this.index;
    while (this.text[this.index] === '"') {
      this.readString();
      this.skipSpace();
      this.index++; // ':'
      this.skipValue();
      end = this.index;
      this.skipSpace();
      if (this.text[this.index] !== ',') break;
      this.index++;
      this.skipSpace();
    }
    return { at: end, before: `,${indentation}`, after: '' };
  }

  /** Moves to the value of `name` in the object at the current position. */
  enterMember(/** @type {string} */ name) {
    this.skipSpace();
    if (this.text[this.index] !== '{') return false;
    this.index++;
    for (;;) {
      this.skipSpace();
      if (this.text[this.index] !== '"') return false; // `}`: not found
      const key = this.readString();
      this.skipSpace();
      this.index++; // ':'
      if (key === name) return true;
      this.skipValue();
      this.skipSpace();
      if (this.text[this.index] === ',') this.index++;
    }
  }

  skipSpace() {
    while (/\s/.test(this.text[this.index] ?? '')) this.index++;
  }

  readString() {
    const start = this.index;
    this.index++;
    while (this.index < this.text.length && this.text[this.index] !== '"') {
      this.index += this.text[this.index] === '\\' ? 2 : 1;
    }
    this.index++;
    return JSON.parse(this.text.slice(start, this.index));
  }

  skipValue() {
    this.skipSpace();
    const first = this.text[this.index];
    if (first === '"') {
      this.readString();
    } else if (first === '{' || first === '[') {
      let depth = 0;
      do {
        const character = this.text[this.index];
        if (character === '"') {
          this.readString();
          continue;
        }
        if (character === '{' || character === '[') depth++;
        if (character === '}' || character === ']') depth--;
        this.index++;
      } while (depth > 0 && this.index < this.text.length);
    } else {
      while (this.index < this.text.length && !/[\s,\]}]/.test(this.text[this.index] ?? '')) this.index++;
    }
  }
}
