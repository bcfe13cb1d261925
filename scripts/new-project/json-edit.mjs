/**
 * Sets scalar values in a JSON document and leaves every other character as it was. The
 * new project's `npm test` starts with `prettier --check`, and the generator cannot run
 * Prettier (from a packed tarball it has only the template's dependencies), so rewriting
 * the whole file through JSON.stringify would change its layout and fail that check.
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
