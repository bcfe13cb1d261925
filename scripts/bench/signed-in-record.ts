import { randomBytes } from 'node:crypto';

/** Random text as the application makes it: base64url of random bytes. */
export function randomText(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

/** The two records a completed sign-in leaves in the store, and the store key of the second. */
export interface SignedInRecords {
  /** The session record, read on every request (under the hash of the cookie token). */
  session: Record<string, unknown>;
  /** `signin:<ref>`: the write-once record the session points to. */
  signInKey: string;
  signIn: Record<string, unknown>;
}

/**
 * What a signed-in user has in the store after an OpenID Connect sign-in
 * (CompleteSignIn, SignInRecords, then koa-session's save): the session record with
 * the sign-in reference, both times, whether a provider session is kept and when it wants refreshing (that record
 * lives apart and is not loaded per request) and koa-session's `_session` marker; and the
 * sign-in record with a principal of eight normalized claims as `[type, value]` pairs
 * (storePrincipal) and the anti-forgery token.
 * Every value that differs between real users differs here too (`index`), so no string
 * is shared between records and the memory measurement is not flattered. `lastSeenAt`
 * is `now` unless given (the callgrind count's server gives a later one).
 */
export function signedInRecords(index: number, now: number, lastSeenAt = now): SignedInRecords {
  const ref = randomText(16);
  return {
    session: {
      signIn: ref,
      createdAt: now,
      lastSeenAt,
      providerSession: true,
      refreshAt: now + 3_600_000,
      _session: true,
    },
    signInKey: `signin:${ref}`,
    signIn: {
      principal: {
        scheme: 'OpenIdConnect',
        claims: [
          ['application:subject', randomText(16)],
          ['application:name', `Person Number${index}`],
          ['application:email', `person.number${index}@example.com`],
          ['application:role', 'User'],
          ['application:role', index % 10 === 0 ? 'Administrator' : 'Reader'],
          ['application:permission', 'application.read'],
          ['application:group', `team-${index % 50}`],
          ['application:tenant', 'example'],
        ],
      },
      csrf: randomText(32),
    },
  };
}
