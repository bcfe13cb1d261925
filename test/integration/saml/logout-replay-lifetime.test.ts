import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { logoutRequestXml, redirectUrl } from '../../../scripts/saml/logout-messages.js';
import { encodeForPost, signElement } from '../../../scripts/saml/saml-response.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { LOGOUT_MESSAGE_LIFETIME_MS } from '../../../src/adapters/saml/received-logout.js';
import { CLOCK_SKEW_MS } from '../../../src/adapters/saml/saml-identity-provider.js';
import { saml2 } from '../../../src/adapters/saml/saml2.js';
import { MemorySessionStore } from '../../../src/adapters/session/memory-session-store.js';
import { RedisSessionStore } from '../../../src/adapters/session/redis-session-store.js';
import type { CallbackMessage, IdentityProvider } from '../../../src/application/ports/identity-provider.js';
import type { SessionStore } from '../../../src/application/ports/session-store.js';
import { adapterOf, logoutEndpointOf, outcomeOf } from '../../support/adapter-of.js';
import { FixedClock } from '../../support/fixed-clock.js';
import { SP_ENTITY_ID } from '../../support/saml-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';

const PUBLIC_ORIGIN = 'https://app.example.com';
const SLO_URL = `${PUBLIC_ORIGIN}/Saml2/Logout`;
const redisUrl = process.env.REDIS_URL ?? '';
/** The last moment a LogoutRequest is still accepted: issued this long ago (its lifetime and the clock skew). */
const ACCEPTED_FOR_MS = LOGOUT_MESSAGE_LIFETIME_MS + CLOCK_SKEW_MS;

/**
 * A LogoutRequest is accepted for 5 minutes after its IssueInstant plus the clock skew, so
 * the record of its ID must outlive that: replayed near the end of the window, it is still
 * refused. Driven by a clock of the test's own (the adapter's, and the memory store's);
 * Redis keeps time by itself, so there the record's own time-to-live is read instead.
 */
describe('SAML2 single logout: a LogoutRequest ID is remembered for as long as the request could be presented', function () {
  this.timeout(30_000);
  const sp = makeSigningCredential({ commonName: 'gatehouse-sp.example' });
  let idp: SamlTestIdentityProvider;

  before(async () => {
    idp = await SamlTestIdentityProvider.start();
    idp.singleLogout = true;
  });
  after(async () => {
    await idp?.close();
  });

  /** The adapter keeping every record in `store`: the records of what was used once as well, wherever they are kept apart. */
  function adapterWith(store: SessionStore, clock: FixedClock): Promise<IdentityProvider> {
    const stores = { sessionStore: store, replayRecords: store };
    return adapterOf(
      saml2,
      {
        EntityId: SP_ENTITY_ID,
        MetadataUrl: idp.metadataUrl,
        SingleLogout: true,
        SigningCertificate: sp.certificatePem,
        SigningKey: sp.privateKeyPem,
      },
      { clock, publicOrigin: PUBLIC_ORIGIN, ...stores },
    );
  }

  /** One signed LogoutRequest, issued at `issuedAt`, as each binding carries it. */
  function messageOf(binding: 'HTTP-Redirect' | 'HTTP-POST', issuedAt: number): CallbackMessage {
    const xml = logoutRequestXml({
      issuer: idp.entityId,
      destination: SLO_URL,
      nameId: 'nobody@example.com',
      issuedAt,
    });
    return binding === 'HTTP-Redirect'
      ? {
          method: 'GET',
          url: new URL(redirectUrl(SLO_URL, 'SAMLRequest', xml, { credential: idp.credential })),
          form: new URLSearchParams(),
        }
      : {
          method: 'POST',
          url: new URL(SLO_URL),
          form: new URLSearchParams({
            SAMLRequest: encodeForPost(signElement(xml, 'LogoutRequest', { credential: idp.credential })),
          }),
        };
  }

  for (const binding of ['HTTP-Redirect', 'HTTP-POST'] as const) {
    it(`${binding}, memory store: replayed 1 s before the request stops being accepted, it is refused (idp.logout_replayed); after that, it is too old (idp.logout_expired)`, async () => {
      const clock = new FixedClock(Date.now());
      const provider = await adapterWith(new MemorySessionStore({ maxEntries: 1000, clock }), clock);
      const message = messageOf(binding, clock.now());
      expect(await outcomeOf(provider.receiveLogout!(message, logoutEndpointOf(provider)))).to.equal('accepted');
      clock.advance(ACCEPTED_FOR_MS - 1000);
      expect(await outcomeOf(provider.receiveLogout!(message, logoutEndpointOf(provider)))).to.equal(
        'idp.logout_replayed',
      );
      // The same moment, a fresh request of the same age is still accepted: the window is open.
      expect(
        await outcomeOf(
          provider.receiveLogout!(messageOf(binding, clock.now() - ACCEPTED_FOR_MS + 1000), logoutEndpointOf(provider)),
        ),
      ).to.equal('accepted');
      clock.advance(2000);
      expect(await outcomeOf(provider.receiveLogout!(message, logoutEndpointOf(provider)))).to.equal(
        'idp.logout_expired',
      );
    });
  }

  if (!redisUrl) it.skip('… on Redis (skipped: REDIS_URL is not set)');
  else
    for (const binding of ['HTTP-Redirect', 'HTTP-POST'] as const) {
      it(`${binding}, Redis store: the record Redis holds outlives the request's window; replayed near its end, it is refused`, async () => {
        const keyPrefix = `gatehouse-test:${randomUUID()}:`;
        const store = new RedisSessionStore({
          connection: { topology: { mode: 'Standalone', url: redisUrl } },
          waitForReplica: false,
          keyPrefix,
          commandTimeoutMs: 1_000,
          logger: { warn: () => undefined, error: () => undefined },
        });
        const redis = new Redis(redisUrl);
        try {
          await store.connect();
          const clock = new FixedClock(Date.now());
          const provider = await adapterWith(store, clock);
          const message = messageOf(binding, clock.now());
          expect(await outcomeOf(provider.receiveLogout!(message, logoutEndpointOf(provider)))).to.equal('accepted');
          const [record, ...others] = await redis.keys(`${keyPrefix}saml-logout-used:*`);
          expect(others).to.deep.equal([]);
          expect(await redis.pttl(record ?? 'none'), 'milliseconds Redis keeps the record').to.be.at.least(
            ACCEPTED_FOR_MS,
          );
          clock.advance(ACCEPTED_FOR_MS - 1000);
          expect(await outcomeOf(provider.receiveLogout!(message, logoutEndpointOf(provider)))).to.equal(
            'idp.logout_replayed',
          );
        } finally {
          redis.disconnect();
          await store.close();
        }
      });
    }
});
