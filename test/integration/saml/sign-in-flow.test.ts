import { expect } from 'chai';
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

  it('serves this service provider’s metadata on GET ModulePath', async () => {
    const response = await fetch(app.acsUrl);
    expect(response.status).to.equal(200);
    const xml = await response.text();
    expect(xml).to.contain(`entityID="${SP_ENTITY_ID}"`);
    expect(xml).to.contain('WantAssertionsSigned="true"');
    expect(xml).to.contain(`Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${app.acsUrl}"`);
  });
});
