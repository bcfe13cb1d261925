import { expect } from 'chai';
import { DOMParser } from '@xmldom/xmldom';
import { readRedirectedAuthnRequest } from '../../../scripts/saml/authn-request.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import {
  auditEvents,
  CONNECTION_SP_ENTITY_ID,
  discover,
  EMAIL_ATTRIBUTE,
  organizationRoute,
  samlChallenge,
  samlConnection,
  sessionClaims,
  startWithConnections,
} from '../../support/connection-app.js';
import { deliverAnswer } from '../../support/deliver-answer.js';
import { freePort, TestBrowser } from '../../support/oidc-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';
import type { RunningGatehouse } from '../../support/start-gatehouse.js';

const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

/** The Subject NameID of an AuthnRequest (SAML Core 3.4.1), with its Format; undefined when it names no subject. */
function subjectOf(xml: string): { format: string | null; value: string | null } | undefined {
  const request = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
  const subject = request.getElementsByTagNameNS(SAML, 'Subject')[0];
  const nameId = subject?.getElementsByTagNameNS(SAML, 'NameID')[0];
  return nameId ? { format: nameId.getAttribute('Format'), value: nameId.textContent } : undefined;
}

/**
 * SAML2 connections against identity providers that sign with xml-crypto (no samlify on
 * that side): Acme (example.com, plain assertions), Initech (initech.test, assertions
 * encrypted to the connection's own key) and Hooli (hooli.test, no login hint).
 */
describe('connections: SAML2 connections found by e-mail domain', function () {
  this.timeout(20_000);
  let app: RunningGatehouse;
  let acme: SamlTestIdentityProvider;
  let initech: SamlTestIdentityProvider;
  let hooli: SamlTestIdentityProvider;
  const initechEncryption = makeSigningCredential({ commonName: 'initech-connection-encryption' });

  before(async () => {
    [acme, initech, hooli] = await Promise.all([
      SamlTestIdentityProvider.start(),
      SamlTestIdentityProvider.start(),
      SamlTestIdentityProvider.start(),
    ]);
    const port = await freePort();
    app = await startWithConnections(port, {
      Acme: samlConnection('acme', ['example.com'], acme, { extra: { DisplayName: 'Acme' } }),
      Initech: samlConnection('initech', ['initech.test'], initech, {
        encryption: initechEncryption,
        extra: { RequireEncryptedAssertions: true },
      }),
      Hooli: samlConnection('hooli', ['hooli.test'], hooli, { extra: { SendLoginHint: false } }),
    });
  });
  after(async () => {
    await app?.close();
    await Promise.all([acme?.close(), initech?.close(), hooli?.close()]);
  });

  it('sends the address to the connection holding its domain as the AuthnRequest Subject, and signs the person in with the organization Gatehouse sets', async () => {
    const browser = new TestBrowser();
    const discovered = await discover(browser, app.url, 'Ada@Example.COM');
    expect(discovered.status).to.equal(302);
    const location = discovered.headers.get('location') ?? '';
    expect(location.startsWith(acme.ssoUrl), 'to the organization’s identity provider').to.equal(true);
    const request = readRedirectedAuthnRequest(location);
    expect(request.acsUrl).to.equal(`${app.url}/connections/acme/saml2/acs`);
    expect(request.issuer).to.equal(CONNECTION_SP_ENTITY_ID);
    expect(subjectOf(request.xml)).to.deep.equal({ format: EMAIL_FORMAT, value: 'Ada@Example.COM' });

    const answer = {
      method: 'POST' as const,
      url: request.acsUrl,
      form: acme.answer(request, CONNECTION_SP_ENTITY_ID),
    };
    const landed = await deliverAnswer(browser, answer, app.url);
    expect(landed.status).to.equal(302);
    expect(landed.headers.get('location')).to.equal('/api/app-info');
    const claims = await sessionClaims(app.gatehouse, browser, app.url);
    expect(claims).to.deep.include.members([
      ['application:email', 'ada@example.com'],
      ['application:organization', 'acme'],
      ['application:connection', 'Acme'],
    ]);
    expect(await organizationRoute(browser, app.url, 'acme')).to.equal(200);
    expect(await organizationRoute(browser, app.url, 'initech')).to.equal(403);
    expect(auditEvents(app.logs, 'signin.succeeded').at(-1)).to.include({
      provider: 'Acme',
      connection: 'Acme',
      organization: 'acme',
    });
  });

  it('signs in with an assertion encrypted to the connection’s own key', async () => {
    const browser = new TestBrowser();
    const discovered = await discover(browser, app.url, 'grace@initech.test');
    const request = readRedirectedAuthnRequest(discovered.headers.get('location') ?? '');
    expect(request.acsUrl).to.equal(`${app.url}/connections/initech/saml2/acs`);
    const form = initech.answer(request, CONNECTION_SP_ENTITY_ID, {
      encrypt: { certificatePem: initechEncryption.certificatePem },
      assertion: { nameId: 'grace@initech.test', attributes: { [EMAIL_ATTRIBUTE]: ['grace@initech.test'] } },
    });
    expect(Buffer.from(form.SAMLResponse ?? '', 'base64').toString('utf8')).to.contain('EncryptedAssertion');
    const landed = await deliverAnswer(browser, { method: 'POST', url: request.acsUrl, form }, app.url);
    expect(landed.status).to.equal(302);
    expect(await sessionClaims(app.gatehouse, browser, app.url)).to.deep.include.members([
      ['application:email', 'grace@initech.test'],
      ['application:organization', 'initech'],
      ['application:connection', 'Initech'],
    ]);
    expect(await organizationRoute(browser, app.url, 'initech')).to.equal(200);
  });

  it('refuses a plain assertion where the connection requires encrypted ones, signing nobody in', async () => {
    const browser = new TestBrowser();
    const request = await samlChallenge(browser, app.url, 'initech');
    const form = initech.answer(request, CONNECTION_SP_ENTITY_ID, {
      assertion: { nameId: 'grace@initech.test', attributes: { [EMAIL_ATTRIBUTE]: ['grace@initech.test'] } },
    });
    const refused = await deliverAnswer(browser, { method: 'POST', url: request.acsUrl, form }, app.url);
    expect(refused.status).to.equal(400);
    expect(browser.sessionToken(app.url)).to.equal(undefined);
  });

  it('sends no Subject for a connection with SendLoginHint false', async () => {
    const browser = new TestBrowser();
    const discovered = await discover(browser, app.url, 'someone@hooli.test');
    expect(discovered.status).to.equal(302);
    const request = readRedirectedAuthnRequest(discovered.headers.get('location') ?? '');
    expect(request.acsUrl).to.equal(`${app.url}/connections/hooli/saml2/acs`);
    expect(subjectOf(request.xml)).to.equal(undefined);
    expect(request.xml).not.to.contain('someone@hooli.test');
  });

  it('sends no Subject when the sign-in is started by name rather than by e-mail', async () => {
    const request = await samlChallenge(new TestBrowser(), app.url, 'Acme');
    expect(subjectOf(request.xml)).to.equal(undefined);
  });

  it('serves each connection’s own SP metadata at its ACS path', async () => {
    const metadata = async (name: string) => {
      const response = await fetch(`${app.url}/connections/${name}/saml2/acs`);
      expect(response.status, name).to.equal(200);
      return new DOMParser().parseFromString(await response.text(), 'text/xml').documentElement;
    };
    const acmeMetadata = await metadata('acme');
    expect(acmeMetadata.getAttribute('entityID')).to.equal(CONNECTION_SP_ENTITY_ID);
    const acs = (element: Element) =>
      element.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:metadata', 'AssertionConsumerService')[0];
    expect(acs(acmeMetadata)?.getAttribute('Location')).to.equal(`${app.url}/connections/acme/saml2/acs`);
    const initechMetadata = await metadata('initech');
    expect(acs(initechMetadata)?.getAttribute('Location')).to.equal(`${app.url}/connections/initech/saml2/acs`);
    const certificates = (element: Element) => {
      const found = element.getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'X509Certificate');
      return Array.from({ length: found.length }, (_, index) =>
        (found.item(index)?.textContent ?? '').replace(/\s+/g, ''),
      );
    };
    const initechCertificate = initechEncryption.certificatePem.replace(/-----[^-]+-----|\s+/g, '');
    expect(certificates(initechMetadata)).to.include(initechCertificate);
    expect(certificates(acmeMetadata)).not.to.include(initechCertificate);
  });
});
