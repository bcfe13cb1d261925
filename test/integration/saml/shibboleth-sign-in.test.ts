import { expect } from 'chai';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { encryptionSettings, SamlBrowser, SP_ENTITY_ID, startSamlApp, type SamlApp } from '../../support/saml-app.js';
import { SamlTestIdentityProvider, type AnswerOptions } from '../../support/saml-identity-provider.js';
import { shibbolethAssertionXml, type ShibbolethAssertionFields } from '../../support/shibboleth-assertion.js';

const PERSISTENT_ID = 'ZtHbFq3RWvk0pXi8yJ2mS4bQyLw=';

/** The claims table of the home page, as `claim type -> values`. */
function claimsOf(home: string): Record<string, string> {
  return Object.fromEntries(
    [...home.matchAll(/<tr><td><code>([^<]+)<\/code><\/td><td>([^<]*)<\/td><\/tr>/g)].map((match) => [
      match[1] ?? '',
      match[2] ?? '',
    ]),
  );
}

describe('SAML2 with a Shibboleth IdP 4/5 (encrypted assertion, urn:oid attributes, persistent NameID)', function () {
  this.timeout(30_000);
  const spKey = makeSigningCredential({ commonName: 'gatehouse-sp-encryption' });
  const running: Array<{ close(): Promise<void> }> = [];
  let idp: SamlTestIdentityProvider;
  afterEach(async () => {
    for (const item of running.splice(0).reverse()) await item.close();
  });

  async function start(env: Record<string, string> = {}): Promise<SamlApp> {
    idp = await SamlTestIdentityProvider.start(makeSigningCredential({ commonName: 'idp.example.edu' }));
    running.push(idp);
    const app = await startSamlApp(idp, { ...encryptionSettings(spKey), ...env });
    running.push(app);
    return app;
  }

  /** Signs in with Shibboleth's answer: the assertion encrypted (AES-128-GCM, RSA-OAEP), the Key for our entity. */
  async function signIn(
    app: SamlApp,
    sign: AnswerOptions['sign'],
    change: Partial<ShibbolethAssertionFields> = {},
  ): Promise<{ response: Response; browser: SamlBrowser }> {
    const browser = new SamlBrowser();
    const request = await browser.challenge(app);
    const assertion = shibbolethAssertionXml({
      issuer: idp.entityId,
      audience: SP_ENTITY_ID,
      recipient: request.acsUrl,
      inResponseTo: request.id,
      nameIdFormat: 'persistent',
      nameId: PERSISTENT_ID,
      attributes: {
        eduPersonPrincipalName: ['jdoe@example.edu'],
        eduPersonScopedAffiliation: ['member@example.edu', 'staff@example.edu'],
        mail: ['jane.doe@example.edu'],
        displayName: ['Jane Doe'],
        givenName: ['Jane'],
        sn: ['Doe'],
      },
      ...change,
    });
    const form = idp.answer(request, SP_ENTITY_ID, {
      sign,
      assertionXml: assertion,
      encrypt: {
        certificatePem: spKey.certificatePem,
        content: 'aes128-gcm',
        keyTransport: 'oaep-mgf1p',
        recipient: SP_ENTITY_ID,
      },
    });
    return { response: await browser.post(app.acsUrl, form), browser };
  }

  it('signing the assertion too (signAssertions=true): signs in with the default settings, mapped by the default table', async () => {
    const app = await start();
    const { response, browser } = await signIn(app, 'both');
    expect(response.status, await response.clone().text()).to.equal(302);
    const claims = claimsOf(await (await browser.get(`${app.url}/`)).text());
    expect(claims['application:subject']).to.equal(PERSISTENT_ID);
    expect(claims['application:name']).to.equal('Jane Doe');
    expect(claims['application:email']).to.equal('jane.doe@example.edu');
  });

  it('Shibboleth’s default signing (the Response only): signs in with RequireSignedAssertions=false, refused without', async () => {
    const strict = await start();
    const refused = await signIn(strict, 'response');
    expect(refused.response.status).to.equal(400);
    expect(await refused.response.text()).to.contain('<code>idp.assertion_unsigned</code>');

    const relaxed = await startSamlApp(idp, {
      ...encryptionSettings(spKey),
      ProjectTemplate__Authentication__Providers__Saml2__RequireSignedAssertions: 'false',
    });
    running.push(relaxed);
    const { response, browser } = await signIn(relaxed, 'response');
    expect(response.status, await response.clone().text()).to.equal(302);
    const claims = claimsOf(await (await browser.get(`${relaxed.url}/`)).text());
    expect(claims['application:subject']).to.equal(PERSISTENT_ID);
  });

  it('a transient NameID (Shibboleth’s default format): the scoped eduPersonPrincipalName names the user', async () => {
    const app = await start();
    const { response, browser } = await signIn(app, 'both', { nameIdFormat: 'transient', nameId: '_4f1c0a9e' });
    expect(response.status, await response.clone().text()).to.equal(302);
    const claims = claimsOf(await (await browser.get(`${app.url}/`)).text());
    expect(claims['application:subject']).to.equal('jdoe@example.edu');
    expect(claims['application:name']).to.equal('Jane Doe');
  });
});
