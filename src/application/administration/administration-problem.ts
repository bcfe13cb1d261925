/** What went wrong with a request to the administration API, as the HTTP adapter maps it to a status. */
export type ProblemKind =
  /** The request is not one the API can take (422): bad keys, a rule broken, a pre-flight failed. */
  | 'invalid'
  /** It clashes with what is stored (409): an old version, a domain another organization proved, the operator's connection. */
  | 'conflict'
  | 'not-found'
  /** The catalog or the DNS cannot be reached now (503): nothing was written. */
  | 'unavailable';

/** One key at fault, named as the start's checks name it, and why in words: never a value. */
export interface KeyProblem {
  key: string;
  message: string;
}

/**
 * A refusal of the administration API: a stable code (`connection.version_conflict`), a
 * sentence for a person, and the keys at fault. It never holds a submitted value, so the
 * adapter may show all of it.
 */
export class AdministrationProblem extends Error {
  constructor(
    readonly kind: ProblemKind,
    readonly code: string,
    readonly detail: string,
    readonly problems: readonly KeyProblem[] = [],
    /** Facts safe to show beside the detail (the current version, the record to publish). */
    readonly facts: Readonly<Record<string, unknown>> = {},
  ) {
    super(detail);
    this.name = 'AdministrationProblem';
  }
}
