/** What went wrong with a guarded fetch, for a caller that reacts to some kinds differently. */
export type FetchRefusalKind =
  /** Not https (http only where private networks are allowed), or a user name or password in the URL. */
  | 'address'
  /** The host, or an address it resolves to, is one the address rule forbids. */
  | 'forbidden'
  /** The host does not resolve, or nothing answered there. */
  | 'unreachable'
  /** TLS failed: the certificate is not trusted, expired, or not the host's. */
  | 'tls'
  | 'timeout'
  /** An answer other than 200, or a redirect where none is followed (or too many). */
  | 'status'
  | 'too-large'
  /** The body is not UTF-8 text. */
  | 'not-text';

/**
 * A guarded fetch that did not bring a document back. `reason` is a clause for a person
 * ("the address resolves to a private network address", "the server answered 404"): it
 * never quotes the URL, an address it resolved to, or a byte of what was received.
 */
export class FetchRefusal extends Error {
  constructor(
    readonly kind: FetchRefusalKind,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'FetchRefusal';
  }
}

export function isFetchRefusal(value: unknown): value is FetchRefusal {
  return value instanceof FetchRefusal;
}
