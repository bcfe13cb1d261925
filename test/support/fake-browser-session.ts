import type { BrowserSession, SessionFields } from '../../src/application/sign-in/session-fields.js';

/** A browser's session for use-case tests: records rotations and the end, fails a rotation when told. */
export class FakeBrowserSession implements BrowserSession {
  fields: SessionFields;
  rotations = 0;
  ended = false;
  handle: string | undefined;
  /** The next rotation throws, as a store time-out would, and changes nothing. */
  failRotation = false;

  constructor(fields: SessionFields = {}, handle?: string) {
    this.fields = { ...fields };
    this.handle = handle;
  }

  async rotate(fields: SessionFields): Promise<string> {
    if (this.failRotation) throw new Error('the store did not answer');
    this.fields = { ...fields };
    this.rotations += 1;
    this.handle = `session:rotated-${this.rotations}`;
    return this.handle;
  }

  end(): void {
    this.ended = true;
    this.fields = {};
    this.handle = undefined;
  }
}
