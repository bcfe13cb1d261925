import { randomBytes } from 'node:crypto';

/** Random text as the application makes it: base64url of random bytes. */
export function randomText(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * The session record of a signed-in user, in the shape the application stores after an
 * OpenID Connect sign-in (remote-callbacks.ts, then koa-session's save): a principal with
 * eight normalized claims, the anti-forgery token, both times, the remaining pending
 * flows, the flow binding kept from before sign-in (external-routes.ts) and koa-session's
 * `_session` marker. No saved tokens (as with SaveTokens off); with them the record grows
 * by the size of the ID, access and refresh tokens.
 * Every value that differs between real users differs here too (`index`), so no string
 * is shared between records and the memory measurement is not flattered.
 */
export function signedInRecord(index: number, now: number): Record<string, unknown> {
  const issuer = 'OpenIdConnect';
  const claim = (type: string, value: string) => ({ type, value, issuer });
  return {
    principal: {
      scheme: 'OpenIdConnect',
      claims: [
        claim('application:subject', randomText(16)),
        claim('application:name', `Person Number${index}`),
        claim('application:email', `person.number${index}@example.com`),
        claim('application:role', 'User'),
        claim('application:role', index % 10 === 0 ? 'Administrator' : 'Reader'),
        claim('application:permission', 'application.read'),
        claim('application:group', `team-${index % 50}`),
        claim('application:tenant', 'example'),
      ],
    },
    csrf: randomText(32),
    createdAt: now,
    lastSeenAt: now,
    pendingFlows: [],
    flowBinding: randomText(32),
    _session: true,
  };
}
