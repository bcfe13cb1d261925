/**
 * The server-side session record, as Gatehouse uses it. It is small on purpose: read on
 * every request of the session, it points to the sign-in record holding the principal.
 * An anonymous visitor has none: nothing is stored before a sign-in completes.
 */
export interface SessionFields {
  /** Reference of the sign-in record holding the principal and anti-forgery token (`SignInRecords`). */
  signIn?: string;
  /** Whether the adapter keeps a provider session for this sign-in (`ProviderSessions`), and when it wants refreshing. */
  providerSession?: boolean;
  refreshAt?: number;
  createdAt?: number;
  lastSeenAt?: number;
}

/**
 * This browser's session, as the use cases see it. The HTTP adapter implements it over
 * its session middleware; changes to `fields` are saved when the request ends, and only
 * into a record that still exists (a logout elsewhere is never undone).
 */
export interface BrowserSession {
  /** The loaded record's fields; empty for a browser without a session. */
  readonly fields: SessionFields;
  /**
   * Replaces the session by a new one holding `fields`: a new id, the old record removed
   * (no fixation). When it fails, the session is left exactly as it was loaded, so no
   * signed-in state is ever saved under an id the browser had before.
   */
  rotate(fields: SessionFields): Promise<void>;
  /**
   * Ends the session: its record is removed now, and the cookie cleared when the request
   * ends. Now, so that the records it points to can be removed after it: a logout the store
   * fails half-way leaves either the session whole or no session, never a session whose
   * sign-in record is gone on one instance and still decoded on another.
   */
  end(): Promise<void>;
}
