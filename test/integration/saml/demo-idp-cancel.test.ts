/**
 * The demo SAML identity provider's sign-in page (also Acme's, in the demo) has a Cancel, as
 * every other demo sign-in page: it takes the person back to the application with a refusal
 * (Responder/RequestDenied), which Gatehouse answers with its calm "Sign-in cancelled" page.
 */
import { expect } from 'chai';
import { freePort } from '../../../scripts/free-port.js';
import {
  startDemoSamlIdentityProvider,
  type DemoSamlIdentityProvider,
} from '../../../scripts/demo-saml-identity-provider.js';
import { demoSamlServiceProvider, demoSamlSettings } from '../../../scripts/demo-settings.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { SamlBrowser } from '../../support/saml-app.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

function hiddenFields(html: string): Record<string, string> {
  return Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1] ?? '', m[2] ?? '']),
  );
}

describe('Cancel at the demo SAML identity provider', function () {
  this.timeout(30_000);
  let idp: DemoSamlIdentityProvider;
  let app: RunningGatehouse;

  before(async () => {
    const port = await freePort();
    const appOrigin = `http://127.0.0.1:${port}`;
    const signing = makeSigningCredential({ commonName: 'gatehouse-demo-sp' });
    idp = await startDemoSamlIdentityProvider({ serviceProviders: [demoSamlServiceProvider(appOrigin, signing)] });
    app = await startGatehouse(
      {
        ProjectTemplate__Hosting__PublicOrigin: appOrigin,
        ...demoSamlSettings({ appOrigin, metadataUrl: idp.metadataUrl, displayName: 'demo SAML', signing }),
      },
      { port },
    );
  });
  after(async () => {
    await app?.close();
    await idp?.close();
  });

  it('is offered, breaks the shown URL at its slashes, and lands on the calm sign-in-cancelled page, signed out', async () => {
    const browser = new SamlBrowser();
    const challenge = await browser.get(`${app.url}/External/Challenge?provider=Saml2&returnUrl=%2F`);
    const sso = challenge.headers.get('location') ?? expect.fail('no redirect to the identity provider');
    const loginHtml = await (await fetch(sso)).text();
    expect(loginHtml).to.contain('<code class="url">http:/<wbr>/<wbr>127.0.0.1:');
    const cancel =
      /<a href="(\/sso\/cancel\?pending=[^"]+)">Cancel<\/a>/.exec(loginHtml)?.[1] ?? expect.fail('no Cancel');
    const posting = await (await fetch(new URL(cancel, sso))).text();
    const form = hiddenFields(posting);
    expect(Buffer.from(form.SAMLResponse ?? '', 'base64').toString('utf8')).to.contain('status:RequestDenied');

    const response = await browser.jar.fetch(`${app.url}/Saml2/Acs`, {
      method: 'POST',
      body: new URLSearchParams(form),
      headers: { accept: 'text/html' },
    });
    expect(response.status).to.equal(400);
    expect(await response.text()).to.contain('<h1>Sign-in cancelled</h1>');
    expect((await browser.get(`${app.url}/api/app-info`)).status, 'not signed in').to.equal(401);
    // The pending request was used up: a second Cancel finds nothing.
    expect((await fetch(new URL(cancel, sso))).status).to.equal(400);
  });
});
