import type { BrowserSession, SessionFields } from '../../src/application/sign-in/session-fields.js';

/** A browser's session for use-case tests: records rotations and the end, fails a rotation when told. */
export class FakeBrowserSession implements BrowserSession {
  fields: SessionFields;
  rotations = 0;
  ended = false;
  /** The next rotation throws, as a store time-out would, and changes nothing. */
  failRotation = false;

  constructor(fields: SessionFields = {}) {
    this.fields = { ...fields };
  }

  async rotate(fields: SessionFields): Promise<void> {
    if (this.failRotation) throw new Error('the store did not answer');
    this.fields = { ...fields };
    this.rotations += 1;
  }

  async end(): Promise<void> {
    this.ended = true;
    this.fields = {};
  }
}
