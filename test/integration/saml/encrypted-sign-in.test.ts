import { expect } from 'chai';
import type { ContentAlgorithm, KeyTransportAlgorithm } from '../../../scripts/saml/assertion-encryption.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { encryptionSettings, expectCode, SamlBrowser, startSamlApp, type SamlApp } from '../../support/saml-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';

const SAML2 = 'ProjectTemplate__Authentication__Providers__Saml2__';

/** The certificate bodies of the metadata's encryption KeyDescriptors, in order. */
function encryptionCertificates(metadata: string): string[] {
  return [
    ...metadata.matchAll(
      /<md:KeyDescriptor[^>]*use="encryption"[^>]*>[\s\S]*?<ds:X509Certificate>([^<]+)<\/ds:X509Certificate>/g,
    ),
  ].map((match) => match[1] ?? '');
}

describe('SAML2 encrypted assertions: decrypted, then held to every check', function () {
  this.timeout(30_000);
  const spKey = makeSigningCredential({ commonName: 'gatehouse-sp-encryption' });
  const running: Array<{ close(): Promise<void> }> = [];
  let idp: SamlTestIdentityProvider;
  let app: SamlApp;

  before(async () => {
    idp = await SamlTestIdentityProvider.start();
    app = await startSamlApp(idp, encryptionSettings(spKey));
  });
  after(async () => {
    for (const item of running.splice(0).reverse()) await item.close();
    await app?.close();
    await idp?.close();
  });

  async function startApp(env: Record<string, string>): Promise<SamlApp> {
    const started = await startSamlApp(idp, env);
    running.push(started);
    return started;
  }

  const combinations: Array<[ContentAlgorithm, KeyTransportAlgorithm, 'inline' | 'sibling']> = [
    ['aes128-gcm', 'oaep-mgf1p', 'inline'],
    ['aes256-gcm', 'oaep-sha256', 'inline'],
    ['aes128-cbc', 'oaep-sha1-xmlenc11', 'inline'],
    ['aes256-cbc', 'oaep-mgf1p', 'sibling'],
  ];
  for (const [content, keyTransport, keyPlacement] of combinations) {
    it(`${content} with ${keyTransport}, the key ${keyPlacement}: signs in with the claims of the decrypted assertion`, async () => {
      const browser = new SamlBrowser();
      const response = await browser.signIn(app, idp, {
        encrypt: { certificatePem: spKey.certificatePem, content, keyTransport, keyPlacement },
      });
      expect(response.status, await response.clone().text()).to.equal(302);
      const home = await (await browser.get(`${app.url}/`)).text();
      expect(home).to.contain('<code>application:subject</code></td><td>admin@example.com</td>');
      expect(home).to.contain('<td>Ada Admin</td>');
    });
  }

  it('publishes the encryption certificate in the metadata, with the algorithms it decrypts', async () => {
    const metadata = await (await fetch(app.acsUrl)).text();
    expect(encryptionCertificates(metadata)).to.deep.equal([spKey.certificateBody]);
    const methods = [...metadata.matchAll(/<md:EncryptionMethod Algorithm="([^"]+)"/g)].map((match) => match[1]);
    expect(methods).to.deep.equal([
      'http://www.w3.org/2009/xmlenc11#aes256-gcm',
      'http://www.w3.org/2009/xmlenc11#aes128-gcm',
      'http://www.w3.org/2001/04/xmlenc#aes256-cbc',
      'http://www.w3.org/2001/04/xmlenc#aes128-cbc',
      'http://www.w3.org/2009/xmlenc11#rsa-oaep',
      'http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p',
    ]);
    expect(metadata).not.to.contain('rsa-1_5');
    expect(metadata).not.to.contain('PRIVATE');
    // Still one SPSSODescriptor, the keys before the ACS (SAML Metadata 2.4.1 order).
    expect(metadata.indexOf('use="encryption"')).to.be.lessThan(metadata.indexOf('AssertionConsumerService'));
  });

  it('a plain assertion is still accepted while RequireEncryptedAssertions is false', async () => {
    expect((await new SamlBrowser().signIn(app, idp)).status).to.equal(302);
  });

  it('RequireEncryptedAssertions=true: a plain assertion is refused (idp.assertion_unencrypted), an encrypted one accepted', async () => {
    const strict = await startApp({ ...encryptionSettings(spKey), [`${SAML2}RequireEncryptedAssertions`]: 'true' });
    const body = await expectCode(await new SamlBrowser().signIn(strict, idp), 400, 'idp.assertion_unencrypted');
    expect(body).to.contain('RequireEncryptedAssertions');
    const encrypted = await new SamlBrowser().signIn(strict, idp, {
      encrypt: { certificatePem: spKey.certificatePem },
    });
    expect(encrypted.status).to.equal(302);
  });

  it('without a key configured an encrypted assertion is refused with what to configure (idp.assertion_encrypted)', async () => {
    const plain = await startApp({});
    const response = await new SamlBrowser().signIn(plain, idp, { encrypt: { certificatePem: spKey.certificatePem } });
    const body = await expectCode(response, 400, 'idp.assertion_encrypted');
    expect(body).to.contain('An encrypted assertion needs Saml2:EncryptionCertificate and EncryptionKey');
    const metadata = await (await fetch(plain.acsUrl)).text();
    expect(metadata).not.to.contain('use="encryption"');
  });

  it('RequireSignedAssertions=false: a signed Response around an unsigned encrypted assertion signs in (Shibboleth’s default signing)', async () => {
    const relaxed = await startApp({ ...encryptionSettings(spKey), [`${SAML2}RequireSignedAssertions`]: 'false' });
    const options = { sign: 'response', encrypt: { certificatePem: spKey.certificatePem } } as const;
    expect((await new SamlBrowser().signIn(relaxed, idp, options)).status).to.equal(302);
    await expectCode(
      await new SamlBrowser().signIn(relaxed, idp, { ...options, sign: 'none' }),
      400,
      'idp.signature_missing',
    );
  });

  it('key rollover: both pairs are published and both decrypt; after the old pair is removed, only the new one does', async () => {
    const next = makeSigningCredential({ commonName: 'gatehouse-sp-encryption-next' });
    const rolling = await startApp({ ...encryptionSettings(next), ...encryptionSettings(spKey, '2') });
    const metadata = await (await fetch(rolling.acsUrl)).text();
    expect(encryptionCertificates(metadata)).to.deep.equal([next.certificateBody, spKey.certificateBody]);
    for (const pair of [spKey, next]) {
      const response = await new SamlBrowser().signIn(rolling, idp, {
        encrypt: { certificatePem: pair.certificatePem },
      });
      expect(response.status, pair === spKey ? 'the old key' : 'the new key').to.equal(302);
    }
    const rolled = await startApp(encryptionSettings(next));
    const old = await new SamlBrowser().signIn(rolled, idp, { encrypt: { certificatePem: spKey.certificatePem } });
    await expectCode(old, 400, 'idp.assertion_invalid');
  });

  it('the keys never reach a log line or a page', async () => {
    // The key's PEM lines, less those that encode the public modulus, which the certificate carries too.
    const keyLines = spKey.privateKeyPem
      .split('\n')
      .filter((line) => line.length > 20 && !line.startsWith('-----') && !spKey.certificateBody.includes(line));
    expect(keyLines.length).to.be.greaterThan(10);
    const browser = new SamlBrowser();
    await browser.signIn(app, idp, { encrypt: { certificatePem: spKey.certificatePem } });
    const pages = [
      await (await browser.get(`${app.url}/`)).text(),
      await (await fetch(app.acsUrl)).text(),
      await (
        await new SamlBrowser().signIn(app, idp, {
          sign: 'assertion',
          encrypt: { certificatePem: spKey.certificatePem, tamperContent: (b) => b.subarray(0, 40) },
        })
      ).text(),
    ];
    const logs = app.logs.join('\n');
    for (const line of keyLines) {
      expect(logs).not.to.contain(line);
      for (const page of pages) expect(page).not.to.contain(line);
    }
  });
});
