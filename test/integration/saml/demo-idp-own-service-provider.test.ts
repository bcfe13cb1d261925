/**
 * A Gatehouse of your own pointed at the demo SAML identity provider (docs/demo.md: "Your
 * own configuration against the demo providers"): the identity provider was started knowing no
 * service provider, and takes this one by its metadata, read from its entity ID (a
 * loopback URL where Gatehouse serves its metadata). Encryption and single logout work
 * from what that metadata publishes; anything else is refused with a page that says how
 * to get in.
 */
import { expect } from 'chai';
import { freePort } from '../../../scripts/free-port.js';
import {
  startDemoSamlIdentityProvider,
  type DemoSamlIdentityProvider,
} from '../../../scripts/demo-saml-identity-provider.js';
import { redirectUrl } from '../../../scripts/saml/logout-messages.js';
import { readServiceProviderMetadata } from '../../../scripts/saml/service-provider-from-metadata.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { CookieJar } from '../../support/drive-oidc-login.js';
import { answerAtDemoSamlIdentityProvider } from '../../support/demo-saml-answer.js';
import { SamlBrowser } from '../../support/saml-app.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

const SAML = 'ProjectTemplate__Authentication__Providers__Saml2__';

describe('the demo SAML identity provider and a service provider of your own, known by its metadata URL', function () {
  this.timeout(30_000);
  let idp: DemoSamlIdentityProvider;
  let app: RunningGatehouse;
  let appOrigin: string;

  before(async () => {
    const port = await freePort();
    appOrigin = `http://127.0.0.1:${port}`;
    idp = await startDemoSamlIdentityProvider({ serviceProviders: [] });
    const signing = makeSigningCredential({ commonName: 'your-own-sp' });
    const encryption = makeSigningCredential({ commonName: 'your-own-sp-encryption' });
    app = await startGatehouse(
      {
        ProjectTemplate__Hosting__PublicOrigin: appOrigin,
        [`${SAML}Enabled`]: 'true',
        [`${SAML}EntityId`]: `${appOrigin}/Saml2/Acs`,
        [`${SAML}MetadataUrl`]: idp.metadataUrl,
        [`${SAML}SigningCertificate`]: signing.certificatePem,
        [`${SAML}SigningKey`]: signing.privateKeyPem,
        [`${SAML}SignAuthnRequests`]: 'true',
        [`${SAML}SingleLogout`]: 'true',
        [`${SAML}EncryptionCertificate`]: encryption.certificatePem,
        [`${SAML}EncryptionKey`]: encryption.privateKeyPem,
        [`${SAML}RequireEncryptedAssertions`]: 'true',
      },
      { port },
    );
  });
  after(async () => {
    await app?.close();
    await idp?.close();
  });

  it('signs admin in with an assertion encrypted to the certificate its metadata publishes, and single logout from the identity provider ends the session', async () => {
    const browser = new SamlBrowser();
    const challenge = await browser.get(`${app.url}/External/Challenge?provider=Saml2&returnUrl=%2F`);
    const sso = challenge.headers.get('location') ?? expect.fail('no redirect to the identity provider');
    const idpJar = new CookieJar();
    const { loginPage, loginHtml, form } = await answerAtDemoSamlIdentityProvider(sso, 'admin', idpJar);
    expect(loginPage.status).to.equal(200);
    expect(loginHtml).to.contain('<meta name="viewport"');
    expect(Buffer.from(form.SAMLResponse ?? '', 'base64').toString('utf8')).to.contain('<saml:EncryptedAssertion');
    expect((await browser.post(`${app.url}/Saml2/Acs`, form)).status).to.equal(302);
    expect(await (await browser.get(`${app.url}/`)).text()).to.contain('<td>Ada Admin</td>');

    // IdP-initiated single logout: its LogoutRequest, signed with its key, through the browser.
    const logout = await idpJar.fetch(new URL('/logout', sso), { method: 'POST' });
    const toApp = logout.headers.get('location') ?? expect.fail('no LogoutRequest sent to the application');
    expect(toApp.startsWith(`${appOrigin}/Saml2/Logout?SAMLRequest=`)).to.equal(true);
    expect((await browser.get(toApp)).status).to.equal(302);
    expect((await browser.get(`${app.url}/`)).status, 'anonymous again').to.equal(302);
  });

  it('refuses an AuthnRequest from an entity ID that is no loopback metadata URL, with a page that says how to get in', async () => {
    const sso = idp.metadataUrl.replace(/\/metadata$/, '/sso');
    const authnRequest = (issuer: string) =>
      `<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r1" Version="2.0" IssueInstant="${new Date().toISOString()}" AssertionConsumerServiceURL="${appOrigin}/Saml2/Acs"><saml:Issuer>${issuer}</saml:Issuer></samlp:AuthnRequest>`;
    for (const issuer of ['https://sp.elsewhere.example/saml', `${appOrigin}/health/live`]) {
      const refused = await fetch(redirectUrl(sso, 'SAMLRequest', authnRequest(issuer)));
      expect(refused.status, issuer).to.equal(400);
      const page = await refused.text();
      expect(page, issuer).to.contain('<h1>Unknown service provider</h1>').and.contain('<meta name="viewport"');
      expect(page, issuer).to.contain(
        'set <code>EntityId</code> to its <code>PublicOrigin</code> followed by <code>/Saml2/Acs</code>',
      );
    }
  });

  it('reads only the SP metadata of the entity ID it was asked for', () => {
    const metadata = (entityId: string, acs = 'http://127.0.0.1:1/Saml2/Acs') =>
      `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${entityId}"><md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:AssertionConsumerService index="0" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${acs}"/></md:SPSSODescriptor></md:EntityDescriptor>`;
    const entityId = 'http://127.0.0.1:1/Saml2/Acs';
    expect(readServiceProviderMetadata(metadata(entityId), entityId)).to.deep.include({
      entityId,
      acsUrl: 'http://127.0.0.1:1/Saml2/Acs',
    });
    expect(readServiceProviderMetadata(metadata('http://127.0.0.1:2/other'), entityId)).to.equal(undefined);
    expect(readServiceProviderMetadata(`<!DOCTYPE x>${metadata(entityId)}`, entityId)).to.equal(undefined);
  });
});
