import { expect } from 'chai';
import {
  CONNECTION_SP_ENTITY_ID,
  discover,
  samlChallenge,
  sessionClaims,
  startWithConnections,
} from '../../support/connection-app.js';
import { deliverAnswer } from '../../support/deliver-answer.js';
import { freePort, TestBrowser } from '../../support/oidc-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';
import type { RunningGatehouse } from '../../support/start-gatehouse.js';

/**
 * A SAML connection whose identity provider's metadata is given as a document
 * (IdpMetadata: a file its admin downloaded), not fetched: the identity provider's
 * metadata endpoint fails throughout, and sign-ins go through, checked against the
 * certificates the document lists.
 */
describe('connections: SAML2 metadata given as a document (IdpMetadata)', function () {
  this.timeout(20_000);
  let app: RunningGatehouse;
  let idp: SamlTestIdentityProvider;
  let stranger: SamlTestIdentityProvider;

  before(async () => {
    [idp, stranger] = await Promise.all([SamlTestIdentityProvider.start(), SamlTestIdentityProvider.start()]);
    const document = idp.metadata();
    idp.metadataMode = 'fail';
    app = await startWithConnections(await freePort(), {
      Acme: {
        Protocol: 'Saml2',
        Organization: 'acme',
        Domains: ['example.com'],
        EntityId: CONNECTION_SP_ENTITY_ID,
        IdpMetadata: document,
        IdpEntityId: idp.entityId,
      },
    });
  });
  after(async () => {
    await app?.close();
    await Promise.all([idp?.close(), stranger?.close()]);
  });

  it('signs a person in with the certificate the document lists, fetching no metadata', async () => {
    const browser = new TestBrowser();
    const discovered = await discover(browser, app.url, 'ada@example.com');
    expect(discovered.status).to.equal(302);
    const location = discovered.headers.get('location') ?? '';
    expect(location.startsWith(idp.ssoUrl), "to the document's sign-in address").to.equal(true);
    const request = await samlChallenge(browser, app.url, 'Acme');
    const answer = { method: 'POST' as const, url: request.acsUrl, form: idp.answer(request, CONNECTION_SP_ENTITY_ID) };
    const landed = await deliverAnswer(browser, answer, app.url);
    expect(landed.status).to.equal(302);
    expect(await sessionClaims(app.gatehouse, browser, app.url)).to.deep.include.members([
      ['application:organization', 'acme'],
      ['application:connection', 'Acme'],
    ]);
    expect(idp.metadataRequests).to.equal(0);
  });

  it('refuses a response signed by a key the document does not list', async () => {
    const browser = new TestBrowser();
    const request = await samlChallenge(browser, app.url, 'Acme');
    // Another identity provider's key, under this one's entity ID.
    const forged = stranger.answer({ ...request }, CONNECTION_SP_ENTITY_ID, {
      assertion: { issuer: idp.entityId },
      response: { issuer: idp.entityId },
    });
    const refused = await deliverAnswer(browser, { method: 'POST', url: request.acsUrl, form: forged }, app.url);
    expect(refused.status).to.be.within(400, 499);
    expect(app.logs.join('\n')).to.include('idp.signature_invalid');
    expect(await sessionClaims(app.gatehouse, browser, app.url)).to.equal(undefined);
  });
});
