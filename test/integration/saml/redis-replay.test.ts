import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { newSamlId } from '../../../scripts/saml/saml-response.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { replayKey } from '../../../src/adapters/saml/assertion-replay-cache.js';
import { continuationOf } from '../../support/deliver-answer.js';
import { encryptionSettings, SamlBrowser, SP_ENTITY_ID, startSamlApp, type SamlApp } from '../../support/saml-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';

const redisUrl = process.env.REDIS_URL ?? '';

if (!redisUrl) it.skip('SAML2 replay across instances (skipped: REDIS_URL is not set)');
else
  describe('SAML2 on Redis: an assertion used on one instance is refused on the other', function () {
    this.timeout(20_000);
    // Both instances hold the encryption key: a plain assertion and an encrypted one are each accepted.
    const spKey = makeSigningCredential({ commonName: 'gatehouse-sp-encryption' });
    let idp: SamlTestIdentityProvider;
    let a: SamlApp;
    let b: SamlApp;

    before(async () => {
      idp = await SamlTestIdentityProvider.start();
      const shared = {
        ProjectTemplate__Session__Store: 'Redis',
        ProjectTemplate__Session__Redis__Url: redisUrl,
        ProjectTemplate__Session__Redis__KeyPrefix: `gatehouse-test:${randomUUID()}:`,
        ProjectTemplate__Authentication__Providers__Saml2__AllowIdpInitiated: 'true',
        ...encryptionSettings(spKey),
      };
      a = await startSamlApp(idp, shared);
      // One public origin for both, as behind one load balancer: the same ACS URL.
      b = await startSamlApp(idp, { ...shared, ProjectTemplate__Hosting__PublicOrigin: a.url });
    });
    after(async () => {
      await a?.close();
      await b?.close();
      await idp?.close();
    });

    it('records the assertion ID in the shared store; the same ID answering a request on B is idp.assertion_replayed', async () => {
      const assertionId = newSamlId();
      const first = new SamlBrowser();
      const firstRequest = await first.challenge(a);
      const accepted = await first.post(
        a.acsUrl,
        idp.answer(firstRequest, SP_ENTITY_ID, { assertion: { assertionId } }),
      );
      expect(accepted.status).to.equal(302);
      expect(await b.gatehouse.stores.sessions.get(replayKey(idp.entityId, assertionId))).to.deep.equal({});

      // Another browser signs in through B; the identity provider's answer reuses the ID.
      const second = new SamlBrowser();
      const secondRequest = await second.challenge(b);
      expect(secondRequest.acsUrl).to.equal(a.acsUrl);
      const replayed = await second.post(
        `${b.url}/Saml2/Acs`,
        idp.answer(secondRequest, SP_ENTITY_ID, { assertion: { assertionId } }),
      );
      const body = await replayed.text();
      expect(replayed.status, body.slice(0, 300)).to.equal(400);
      expect(body).to.contain('<code>idp.assertion_replayed</code>');
      expect(second.sessionToken(b.url)).to.equal(undefined);

      // A fresh assertion ID for a fresh request signs in on B.
      const third = new SamlBrowser();
      const thirdRequest = await third.challenge(b);
      expect((await third.post(`${b.url}/Saml2/Acs`, idp.answer(thirdRequest, SP_ENTITY_ID))).status).to.equal(302);
    });

    for (const encrypted of [false, true])
      it(`an IdP-initiated response${encrypted ? ', its assertion encrypted,' : ''} used on A is refused on B: its assertion is recorded in the shared store too`, async () => {
        const assertionId = newSamlId();
        const form = idp.unsolicitedAnswer(a.acsUrl, SP_ENTITY_ID, {
          assertion: { assertionId },
          ...(encrypted ? { encrypt: { certificatePem: spKey.certificatePem } } : {}),
        });
        const deliver = async (app: SamlApp) => {
          const browser = new SamlBrowser();
          const first = await fetch(`${app.url}/Saml2/Acs`, { method: 'POST', body: new URLSearchParams(form) });
          const { action, fields } = continuationOf(await first.text(), app.url);
          return { response: await browser.post(action, fields), browser };
        };
        expect((await deliver(a)).response.status).to.equal(302);
        expect(await b.gatehouse.stores.sessions.get(replayKey(idp.entityId, assertionId))).to.deep.equal({});
        const { response, browser } = await deliver(b);
        const body = await response.text();
        expect(response.status, body.slice(0, 300)).to.equal(400);
        expect(body).to.contain('<code>idp.assertion_replayed</code>');
        expect(browser.sessionToken(b.url)).to.equal(undefined);
      });
  });
