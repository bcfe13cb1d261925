import type { Connection } from '../../domain/connections/connection.js';

/** One reason a connection cannot be stored: the key at fault and why, for the person who wrote it. */
export interface PreflightRefusal {
  /** The connection key at fault: `Authority`, `MetadataUrl`, `IdpEntityId` ... */
  key: string;
  /**
   * In words, for a person: never a secret, never the fetched document's bytes beyond a
   * short identifier like the issuer found.
   */
  reason: string;
}

/**
 * Talks to a connection's identity provider before the connection is stored (an
 * administration API's create or change): the OpenID discovery document or the SAML
 * metadata is fetched, through a guard that never reaches this deployment's own networks,
 * and must name the identity provider declared and hold usable, unexpired signing keys.
 * Every refusal is returned, never thrown: `[]` means the connection passed.
 */
export interface ConnectionPreflight {
  check(connection: Connection): Promise<PreflightRefusal[]>;
}

export const ConnectionPreflightToken = Symbol('ConnectionPreflight');

/** One check of a pre-flight, as the setup portal lists them: the key it is about, and what was found. */
export interface PreflightCheck {
  key: string;
  /** `failed` is a refusal: a write with these keys would be refused for it. */
  outcome: 'passed' | 'failed';
  /** In words, under the same rules as a refusal's reason: never a secret, never a document's bytes. */
  text: string;
}

/**
 * The pre-flight's every check, passed or failed, for a protocol's keys that are not a
 * connection yet (the setup portal checks them as its admin types): the same checks, in
 * the same code, as a write's pre-flight, and nothing stored.
 */
export interface PreflightReport {
  report(protocol: string, keys: Readonly<Record<string, unknown>>): Promise<PreflightCheck[]>;
}
