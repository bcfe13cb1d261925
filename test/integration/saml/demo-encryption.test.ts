import { expect } from 'chai';
import { freePort } from '../../../scripts/free-port.js';
import {
  startDemoSamlIdentityProvider,
  type DemoSamlIdentityProvider,
} from '../../../scripts/demo-saml-identity-provider.js';
import { demoSamlServiceProvider, demoSamlSettings } from '../../../scripts/demo-settings.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { answerAtDemoSamlIdentityProvider } from '../../support/demo-saml-answer.js';
import { SamlBrowser } from '../../support/saml-app.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

describe('the demo SAML identity provider with DEMO_SAML_ENCRYPT: assertions encrypted to Gatehouse', function () {
  this.timeout(30_000);
  let idp: DemoSamlIdentityProvider;
  let app: RunningGatehouse;

  before(async () => {
    const port = await freePort();
    const appOrigin = `http://127.0.0.1:${port}`;
    const encryption = makeSigningCredential({ commonName: 'gatehouse-demo-sp-encryption' });
    const signing = makeSigningCredential({ commonName: 'gatehouse-demo-sp' });
    idp = await startDemoSamlIdentityProvider({
      serviceProviders: [demoSamlServiceProvider(appOrigin, signing, encryption)],
    });
    app = await startGatehouse(
      {
        ProjectTemplate__Hosting__PublicOrigin: appOrigin,
        ...demoSamlSettings({ appOrigin, metadataUrl: idp.metadataUrl, displayName: 'demo SAML', signing, encryption }),
      },
      { port },
    );
  });
  after(async () => {
    await app?.close();
    await idp?.close();
  });

  it('signs admin in with an encrypted assertion, and Gatehouse requires one', async () => {
    const browser = new SamlBrowser();
    const challenge = await browser.get(`${app.url}/External/Challenge?provider=Saml2&returnUrl=%2F`);
    const sso = challenge.headers.get('location') ?? expect.fail('no redirect to the identity provider');
    const { form } = await answerAtDemoSamlIdentityProvider(sso, 'admin');
    const xml = Buffer.from(form.SAMLResponse ?? '', 'base64').toString('utf8');
    expect(xml).to.contain('<saml:EncryptedAssertion');
    expect(xml).not.to.contain('Ada Admin');

    const response = await browser.post(`${app.url}/Saml2/Acs`, form);
    expect(response.status, await response.clone().text()).to.equal(302);
    const home = await (await browser.get(`${app.url}/`)).text();
    expect(home).to.contain('<td>Ada Admin</td>');
    const metadata = await (await fetch(`${app.url}/Saml2/Acs`)).text();
    expect(metadata).to.contain('use="encryption"');
  });
});
