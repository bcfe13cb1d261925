/** What a protocol's pre-flight needs beyond the connection's keys. */
export interface PreflightContext {
  /** GETs a document through the SSRF guard; a failure is a `FetchRefusal`, whose reason is safe to show. */
  fetch(url: string, accept: string, maxBytes?: number): Promise<string>;
  /** Milliseconds since the epoch: certificates and `validUntil` are judged at this instant. */
  now: number;
  /**
   * Told of each check that passed, by the key it is about, in words (the setup portal lists
   * them beside the refusals); absent when only refusals matter.
   */
  passed?(key: string, text: string): void;
}

const LONGEST_QUOTE = 120;

/**
 * A short identifier taken from a fetched document (an issuer, an entityID, a key ID, a
 * certificate's subject), fit to quote in a refusal: control characters dropped, cut at
 * 120 characters, in quotes. Nothing longer of a document is ever quoted.
 */
export function quoteShort(text: string): string {
  const clean = text.replace(/\p{Cc}+/gu, ' ').trim();
  return JSON.stringify(clean.length > LONGEST_QUOTE ? `${clean.slice(0, LONGEST_QUOTE)}…` : clean);
}

/** An instant as a person reads it in a refusal: `2024-05-01T00:00:00Z`. */
export function instant(milliseconds: number): string {
  return new Date(milliseconds).toISOString().replace(/\.000Z$/, 'Z');
}
