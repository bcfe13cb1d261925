import 'reflect-metadata';
import { expect } from 'chai';
import { FlowRecords } from '../../../src/application/sign-in/flow-records.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';
import { SamlBrowser, SP_ENTITY_ID, startSamlApp, type SamlApp } from '../../support/saml-app.js';

describe('SAML2 sign-in through the app (xml-crypto-signed responses)', function () {
  this.timeout(20_000);
  let idp: SamlTestIdentityProvider;
  let app: SamlApp;

  before(async () => {
    idp = await SamlTestIdentityProvider.start();
    app = await startSamlApp(idp);
  });
  after(async () => {
    await app?.close();
    await idp?.close();
  });

  it('keeps no more for a pending sign-in than the request ID the answer must name', async () => {
    const request = await new SamlBrowser().challenge(app);
    const flow = await new FlowRecords(app.gatehouse.stores.pendingSignIns).find(request.relayState ?? '');
    expect(flow?.secrets).to.deep.equal({ requestId: request.id });
  });

  it('signs the admin in: claims from the NameID and attributes, every role kept, back to the return URL', async () => {
    const browser = new SamlBrowser();
    const response = await browser.signIn(app, idp, {}, '/api/app-info');
    expect(response.status, await response.clone().text()).to.equal(302);
    expect(response.headers.get('location')).to.equal('/api/app-info');
    const home = await (await browser.get(`${app.url}/`)).text();
    expect(home).to.contain('Welcome, Ada Admin');
    expect(home).to.contain('<code>application:subject</code></td><td>admin@example.com');
    expect(home).to.contain('<code>application:email</code></td><td>ada@example.com');
    expect(home).to.contain('<code>application:role</code></td><td>Administrator');
    expect(home).to.contain('<code>application:role</code></td><td>Auditor');
    expect(home).to.contain('<code>application:group</code></td><td>ops');
    expect((await browser.get(`${app.url}/api/app-info/admin`)).status).to.equal(200);
  });

  it('logs nothing of the messages beyond their IDs (and the audit trail its subject): no NameID elsewhere, attribute, status text, SAMLResponse or RelayState', async () => {
    const logsBefore = app.logs.length;
    const sentinel = 'SENTINEL-saml-7c1e';
    const browser = new SamlBrowser();
    const request = await browser.challenge(app);
    const accepted = idp.answer(request, SP_ENTITY_ID, {
      assertion: { nameId: `${sentinel}-nameid`, attributes: { 'urn:oid:2.5.4.42': [`${sentinel}-given`] } },
    });
    expect((await browser.post(app.acsUrl, accepted)).status).to.equal(302);
    const refusedRequest = await browser.challenge(app);
    const refused = idp.answer(refusedRequest, SP_ENTITY_ID, {
      assertion: { audiences: ['https://elsewhere.example'], nameId: `${sentinel}-refused` },
      sign: 'assertion',
      tamper: (xml) =>
        xml.replace('</samlp:StatusCode>', `</samlp:StatusCode><samlp:StatusMessage>${sentinel}</samlp:StatusMessage>`),
    });
    expect((await browser.post(app.acsUrl, refused)).status).to.equal(400);
    // The audit trail names who signed in (the subject, here the NameID) and nothing else of the message.
    const audit = app.logs.slice(logsBefore).filter((line) => line.includes('"audit":true'));
    expect(audit.map((line) => (JSON.parse(line) as { subject?: string }).subject)).to.deep.equal([
      `${sentinel}-nameid`,
      undefined,
    ]);
    const logs = app.logs
      .slice(logsBefore)
      .filter((line) => !audit.includes(line))
      .join('\n');
    expect(audit.join('\n').replaceAll(`"subject":"${sentinel}-nameid"`, '')).not.to.contain(sentinel);
    for (const secret of [
      sentinel,
      accepted.SAMLResponse?.slice(0, 40),
      refused.SAMLResponse?.slice(0, 40),
      request.relayState,
      refusedRequest.relayState,
    ]) {
      expect(logs).not.to.contain(secret);
    }
    const refusal = app.logs.slice(logsBefore).find((line) => line.includes('"code":"idp.audience_mismatch"'));
    expect(refusal, logs).to.be.a('string');
    expect(refusal).to.contain(`"requestId":"${refusedRequest.id}"`);
    expect(refusal).to.match(/"assertionId":"_[0-9a-f]+"/);
  });

  it('serves this service provider’s metadata on GET ModulePath', async () => {
    const response = await fetch(app.acsUrl);
    expect(response.status).to.equal(200);
    const xml = await response.text();
    expect(xml).to.contain(`entityID="${SP_ENTITY_ID}"`);
    expect(xml).to.contain('WantAssertionsSigned="true"');
    expect(xml).to.contain(`Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${app.acsUrl}"`);
  });
});
