import { randomBytes } from 'node:crypto';

/** Random text as the application makes it: base64url of random bytes. */
export function randomText(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * The session record of a signed-in user, in the shape the application stores after an
 * OpenID Connect sign-in (remote-callbacks.ts, then koa-session's save): a principal with
 * eight normalized claims as `[type, value]` pairs (storePrincipal), the anti-forgery
 * token, both times, the reference to the saved-tokens record (which lives apart and is
 * not loaded per request) and koa-session's `_session` marker.
 * Every value that differs between real users differs here too (`index`), so no string
 * is shared between records and the memory measurement is not flattered.
 */
export function signedInRecord(index: number, now: number): Record<string, unknown> {
  return {
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
    createdAt: now,
    lastSeenAt: now,
    tokensRef: randomText(32),
    tokensExpireAt: now + 3_600_000,
    tokensRefreshable: true,
    _session: true,
  };
}
