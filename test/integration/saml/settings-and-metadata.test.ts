import { expect } from 'chai';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { expectCode, SamlBrowser, SP_ENTITY_ID, startSamlApp } from '../../support/saml-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';

describe('SAML2 settings and identity-provider metadata', function () {
  this.timeout(30_000);
  const running: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const item of running.splice(0).reverse()) await item.close();
  });

  async function start(env: Record<string, string> = {}, credential = makeSigningCredential()) {
    const idp = await SamlTestIdentityProvider.start(credential);
    running.push(idp);
    const app = await startSamlApp(idp, env);
    running.push(app);
    return { idp, app };
  }

  it('RequireSignedAssertions=false: a signed Response around an unsigned Assertion is enough, nothing signed is not', async () => {
    const { idp, app } = await start({
      ProjectTemplate__Authentication__Providers__Saml2__RequireSignedAssertions: 'false',
    });
    expect((await fetch(app.acsUrl).then((r) => r.text())).includes('WantAssertionsSigned="false"')).to.equal(true);
    expect((await new SamlBrowser().signIn(app, idp, { sign: 'response' })).status).to.equal(302);
    expect((await new SamlBrowser().signIn(app, idp, { sign: 'assertion' })).status).to.equal(302);
    await expectCode(await new SamlBrowser().signIn(app, idp, { sign: 'none' }), 400, 'idp.signature_missing');
  });

  it('ValidateCertificates: a signing certificate past its validity is refused; with it false, accepted', async () => {
    const expired = makeSigningCredential({
      notBefore: Date.now() - 400 * 86_400_000,
      notAfter: Date.now() - 86_400_000,
    });
    const strict = await start({}, expired);
    await expectCode(await new SamlBrowser().signIn(strict.app, strict.idp), 400, 'idp.certificate_expired');
    const lenient = await start(
      { ProjectTemplate__Authentication__Providers__Saml2__ValidateCertificates: 'false' },
      expired,
    );
    expect((await new SamlBrowser().signIn(lenient.app, lenient.idp)).status).to.equal(302);
  });

  it('a certificate not yet valid is refused too', async () => {
    const future = makeSigningCredential({
      notBefore: Date.now() + 86_400_000,
      notAfter: Date.now() + 400 * 86_400_000,
    });
    const { idp, app } = await start({}, future);
    await expectCode(await new SamlBrowser().signIn(app, idp), 400, 'idp.certificate_expired');
  });

  it('key rollover: every signing certificate of the metadata is accepted, with or without KeyInfo', async () => {
    const { idp, app } = await start();
    expect((await new SamlBrowser().signIn(app, idp)).status, 'loads the one-certificate metadata').to.equal(302);
    const next = makeSigningCredential({ commonName: 'next.idp.example' });
    idp.metadataCertificates = [idp.credential.certificateBody, next.certificateBody];
    const rolled = await startSamlApp(idp);
    running.push(rolled);
    for (const keyInfo of [true, false]) {
      const response = await new SamlBrowser().signIn(rolled, idp, { signing: { credential: next, keyInfo } });
      expect(response.status, `signed by the second certificate, keyInfo ${keyInfo}`).to.equal(302);
    }
    expect((await new SamlBrowser().signIn(rolled, idp, { signing: { keyInfo: false } })).status).to.equal(302);
    // The app that loaded the one-certificate metadata does not know the new key yet.
    await expectCode(
      await new SamlBrowser().signIn(app, idp, { signing: { credential: next } }),
      400,
      'idp.signature_invalid',
    );
  });

  it('metadata without a signing certificate is refused: the challenge answers 503, no redirect', async () => {
    const { idp, app } = await start();
    idp.metadataCertificates = [];
    const response = await fetch(`${app.url}/External/Challenge?provider=Saml2`, {
      redirect: 'manual',
      headers: { accept: 'text/html' },
    });
    const body = await response.clone().text();
    await expectCode(response, 503, 'idp.metadata_invalid');
    expect(body).to.contain('It names no signing certificate');
    expect(app.logs.join('\n')).to.contain('"code":"idp.metadata_invalid"');
  });

  for (const [label, mutate] of [
    [
      'a DTD',
      (xml: string) => xml.replace('<md:EntityDescriptor', '<!DOCTYPE x [<!ENTITY a "b">]><md:EntityDescriptor'),
    ],
    [
      'signed AuthnRequests demanded',
      (xml: string) => xml.replace('WantAuthnRequestsSigned="false"', 'WantAuthnRequestsSigned="true"'),
    ],
    ['no HTTP-Redirect endpoint', (xml: string) => xml.replace('bindings:HTTP-Redirect', 'bindings:SOAP')],
    [
      'a validUntil in the past',
      (xml: string) => xml.replace('<md:EntityDescriptor ', '<md:EntityDescriptor validUntil="2001-01-01T00:00:00Z" '),
    ],
  ] as const) {
    it(`metadata with ${label} is refused`, async () => {
      const { idp, app } = await start();
      idp.metadataOverride = mutate(idp.metadata());
      const response = await fetch(`${app.url}/External/Challenge?provider=Saml2`, {
        redirect: 'manual',
        headers: { accept: 'text/html' },
      });
      await expectCode(response, 503, 'idp.metadata_invalid');
    });
  }

  it('metadata that never arrives: the challenge fails with idp.timeout within HttpTimeoutSeconds; readiness reports the provider down, not required, and starts no load during the wait', async () => {
    const { idp, app } = await start({ ProjectTemplate__Authentication__HttpTimeoutSeconds: '1' });
    idp.metadataMode = 'hang';
    const started = performance.now();
    const response = await fetch(`${app.url}/External/Challenge?provider=Saml2`, {
      redirect: 'manual',
      headers: { accept: 'text/html' },
    });
    await expectCode(response, 503, 'idp.timeout');
    expect(performance.now() - started).to.be.within(900, 3000);
    const ready = await fetch(`${app.url}/health/ready`);
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.have.nested.property('checks.identityProvider:Saml2', 'down');
    // Served again: the next load waits its turn (5 s after this failure, metadata-backoff.test.ts).
    idp.metadataMode = 'serve';
    expect(await (await fetch(`${app.url}/health/ready`)).json()).to.have.nested.property(
      'checks.identityProvider:Saml2',
      'down',
    );
    expect(idp.metadataRequests).to.equal(1);
  });

  it('metadata answered with an HTTP error: idp.unreachable (503)', async () => {
    const { idp, app } = await start();
    idp.metadataMode = 'fail';
    const response = await fetch(`${app.url}/External/Challenge?provider=Saml2`, {
      redirect: 'manual',
      headers: { accept: 'text/html' },
    });
    await expectCode(response, 503, 'idp.unreachable');
  });

  it('the metadata is fetched once and reused (not per sign-in)', async () => {
    const { idp, app } = await start();
    for (let i = 0; i < 3; i += 1) expect((await new SamlBrowser().signIn(app, idp)).status).to.equal(302);
    expect(idp.metadataRequests).to.equal(1);
  });

  it('a transient NameID is no subject: refused alone, the eduPersonPrincipalName names the user when sent', async () => {
    const { idp, app } = await start();
    const transient = 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient';
    await expectCode(
      await new SamlBrowser().signIn(app, idp, {
        assertion: { nameId: '_t-1', nameIdFormat: transient, attributes: {} },
      }),
      400,
      'idp.subject_missing',
    );
    const browser = new SamlBrowser();
    const response = await browser.signIn(app, idp, {
      assertion: {
        nameId: '_t-2',
        nameIdFormat: transient,
        attributes: { 'urn:oid:1.3.6.1.4.1.5923.1.1.1.6': ['ada@example.edu'] },
      },
    });
    expect(response.status).to.equal(302);
    const home = await (await browser.get(`${app.url}/`)).text();
    expect(home).to.contain('<code>application:subject</code></td><td>ada@example.edu</td>');
    expect(home).not.to.contain('_t-2');
  });

  it('an attribute named __proto__ is an ordinary claim and pollutes nothing', async () => {
    const { idp, app } = await start();
    const browser = new SamlBrowser();
    const response = await browser.signIn(app, idp, {
      // fromEntries makes `__proto__` an own key, as an XML attribute name would be.
      assertion: {
        attributes: Object.fromEntries([
          ['__proto__', ['polluted']],
          ['constructor', ['also']],
          ['urn:oid:2.16.840.1.113730.3.1.241', ['Ada']],
        ]),
      },
    });
    expect(response.status).to.equal(302);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    expect(Object.prototype).not.to.have.property('0');
    const home = await (await browser.get(`${app.url}/`)).text();
    expect(home).to.contain('<code>__proto__</code></td><td>polluted</td>');
    expect(home).to.contain('<code>constructor</code></td><td>also</td>');
    expect(home).to.contain('Welcome, Ada');
  });

  it('the audience is this application’s EntityId, whatever the origin', async () => {
    const { idp, app } = await start({
      ProjectTemplate__Authentication__Providers__Saml2__EntityId: 'https://sso.example.org/gatehouse',
    });
    await expectCode(await new SamlBrowser().signIn(app, idp), 400, 'idp.audience_mismatch');
    const browser = new SamlBrowser();
    const request = await browser.challenge(app);
    expect(request.issuer).to.equal('https://sso.example.org/gatehouse');
    expect(request.acsUrl).to.equal(app.acsUrl);
    expect((await browser.post(app.acsUrl, idp.answer(request, 'https://sso.example.org/gatehouse'))).status).to.equal(
      302,
    );
    expect(SP_ENTITY_ID).not.to.equal('https://sso.example.org/gatehouse');
  });
});
