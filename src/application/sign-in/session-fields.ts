/**
 * The server-side session record, as Gatehouse uses it. It is small on purpose: read on
 * every request of the session, it points to the sign-in record holding the principal.
 * An anonymous visitor has none: nothing is stored before a sign-in completes.
 */
export interface SessionFields {
  /** Reference of the sign-in record holding the principal and anti-forgery token (`SignInRecords`). */
  signIn?: string;
  /** A coarse name of the device signed in from (`Firefox on Linux`), for the sessions page. */
  device?: string;
  /** The session's public identifier (audit events, the sessions page): never its cookie value or store key. */
  publicId?: string;
  /** Whether the adapter keeps a provider session for this sign-in (`ProviderSessions`), and when it wants refreshing. */
  providerSession?: boolean;
  refreshAt?: number;
  createdAt?: number;
  lastSeenAt?: number;
  /** When this session last completed a step-up, and for which policies (StepUps: one round trip per request, never a loop). */
  steppedUpAt?: number;
  steppedUpFor?: string;
}

/**
 * This browser's session, as the use cases see it. The HTTP adapter implements it over
 * its session middleware; changes to `fields` are saved when the request ends, and only
 * into a record that still exists (a logout elsewhere is never undone).
 */
export interface BrowserSession {
  /** The loaded record's fields; empty for a browser without a session. */
  readonly fields: SessionFields;
  /** The store key of this browser's session record (what the session index lists); undefined without one. */
  readonly handle: string | undefined;
  /**
   * Replaces the session by a new one holding `fields`: a new id, the old record removed
   * (no fixation); resolves to the new session's handle. When it fails, the session is left
   * exactly as it was loaded, so no signed-in state is ever saved under an id the browser
   * had before.
   */
  rotate(fields: SessionFields): Promise<string>;
  /** Ends the session: its record is removed and the cookie cleared. */
  end(): void;
}
