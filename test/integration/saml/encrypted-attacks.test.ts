import { expect } from 'chai';
import { assertionXml, SAML_ASSERTION, signElement } from '../../../scripts/saml/saml-response.js';
import { encryptAssertion, type EncryptOptions } from '../../../scripts/saml/assertion-encryption.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { encryptionSettings, SamlBrowser, SP_ENTITY_ID, startSamlApp, type SamlApp } from '../../support/saml-app.js';
import { SamlTestIdentityProvider, type AnswerOptions } from '../../support/saml-identity-provider.js';

/** A refusal: the error page with the code, no session cookie, no redirect. */
async function expectRefused(response: Response, code: string, status = 400): Promise<string> {
  const body = await response.text();
  expect(response.status, body.slice(0, 400)).to.equal(status);
  expect(body).to.contain(`<code>${code}</code>`);
  expect(response.headers.get('location')).to.equal(null);
  expect(response.headers.getSetCookie().join('\n')).not.to.match(/gatehouse\.sid=/);
  return body;
}

/** The page without the request's own reference (random per request). */
const withoutReference = (body: string) => body.replace(/Reference <code>[^<]*<\/code>/, 'Reference <code>*</code>');

describe('SAML2 encrypted-assertion attacks: every forged, misdirected or tampered one is refused, no session', function () {
  this.timeout(30_000);
  const spKey = makeSigningCredential({ commonName: 'gatehouse-sp-encryption' });
  const encrypt = (options: Partial<EncryptOptions> = {}): EncryptOptions => ({
    certificatePem: spKey.certificatePem,
    ...options,
  });
  let idp: SamlTestIdentityProvider;
  let app: SamlApp;

  before(async () => {
    idp = await SamlTestIdentityProvider.start();
    app = await startSamlApp(idp, {
      ...encryptionSettings(spKey),
      ProjectTemplate__Session__PendingSignInsPerClient: '1000',
    });
  });
  after(async () => {
    await app?.close();
    await idp?.close();
  });

  function attempt(options: AnswerOptions): Promise<Response> {
    return new SamlBrowser().signIn(app, idp, options);
  }

  describe('tampered ciphertext: one answer, whatever failed (no padding or tag oracle)', () => {
    // The Response is left unsigned, so that the tampered ciphertext is decrypted at all.
    const cases: Array<[string, AnswerOptions]> = [
      [
        'an AES-GCM tag that does not verify',
        { sign: 'assertion', encrypt: encrypt({ content: 'aes256-gcm', tamperContent: flipLastByte }) },
      ],
      [
        'AES-CBC whose padding is wrong',
        {
          sign: 'assertion',
          encrypt: encrypt({ content: 'aes128-cbc', plaintextOf: () => zeroPadded(64), rawPlaintext: true }),
        },
      ],
      [
        'AES-CBC whose padding is right but whose plaintext is garbled',
        { sign: 'assertion', encrypt: encrypt({ content: 'aes256-cbc', tamperContent: flipByte(20) }) },
      ],
      [
        'an encrypted key that decrypts with no configured key (another service provider’s)',
        {
          sign: 'assertion',
          encrypt: encrypt({ certificatePem: makeSigningCredential({ commonName: 'other-sp' }).certificatePem }),
        },
      ],
      [
        'an encrypted key tampered with',
        {
          sign: 'assertion',
          encrypt: encrypt(),
          tamper: (xml) =>
            xml.replace(
              /(<xenc:EncryptedKey[\s\S]*?<xenc:CipherValue>)(.)/,
              (_, head, c) => `${head}${c === 'A' ? 'B' : 'A'}`,
            ),
        },
      ],
    ];
    it('each is idp.assertion_invalid with the same status and the same page', async () => {
      const pages: string[] = [];
      for (const [label, options] of cases) {
        const response = await attempt(options);
        expect(response.status, label).to.equal(400);
        pages.push(withoutReference(await expectRefused(response, 'idp.assertion_invalid')));
      }
      for (const [index, page] of pages.entries()) expect(page, cases[index]?.[0]).to.equal(pages[0]);
    });

    it('the log says which step failed, for the operator, and nothing of the message', async () => {
      const before = app.logs.length;
      await expectRefused(
        await attempt({ sign: 'assertion', encrypt: encrypt({ tamperContent: flipLastByte }) }),
        'idp.assertion_invalid',
      );
      await expectRefused(
        await attempt({
          sign: 'assertion',
          encrypt: encrypt({ certificatePem: makeSigningCredential().certificatePem }),
        }),
        'idp.assertion_invalid',
      );
      // The signed assertion itself, in whole blocks of trailing spaces: well-formed, but its
      // last byte (a space, 32) is no padding length. Parsed like any plaintext, then refused.
      const spacePadded = (xml: string) => Buffer.from(xml.padEnd(Math.ceil((xml.length + 1) / 16) * 16, ' '));
      await expectRefused(
        await attempt({
          sign: 'assertion',
          encrypt: encrypt({ content: 'aes256-cbc', plaintextOf: spacePadded, rawPlaintext: true }),
        }),
        'idp.assertion_invalid',
      );
      const logs = app.logs.slice(before).join('\n');
      expect(logs.match(/"decryption":"content"/g)).to.have.length(2);
      expect(logs).to.contain('"decryption":"no-key-decrypts"');
      expect(logs).not.to.contain('CipherValue');
      expect(logs).not.to.contain('Ada Admin');
    });

    it('under a signed Response a tampered ciphertext is never decrypted: the signature refuses it', async () => {
      const before = app.logs.length;
      // Changed after the Response was signed: one base64 character of the content's ciphertext.
      const tamper = (xml: string) =>
        xml.replace(/(<xenc:CipherValue>[^<]*<\/xenc:CipherValue><\/xenc:CipherData><\/xenc:EncryptedData>)/, (value) =>
          value.replace(/<xenc:CipherValue>(.)/, (_, c: string) => `<xenc:CipherValue>${c === 'A' ? 'B' : 'A'}`),
        );
      const response = await attempt({ sign: 'both', encrypt: encrypt(), tamper });
      await expectRefused(response, 'idp.signature_invalid');
      expect(app.logs.slice(before).join('\n')).not.to.contain('"decryption"');
    });
  });

  describe('algorithms', () => {
    const refused: Array<[string, Partial<EncryptOptions>]> = [
      ['RSA PKCS#1 v1.5 key transport', { keyTransport: 'rsa-1_5' }],
      ['RSA-OAEP with a SHA-256 digest and an MGF1-SHA1 mask', { keyTransport: 'oaep-mixed' }],
      ['Triple DES content encryption', { content: 'tripledes-cbc' }],
    ];
    for (const [label, options] of refused) {
      it(`${label}: idp.encryption_algorithm_refused, with a signed Response too`, async () => {
        for (const sign of ['assertion', 'both'] as const) {
          const body = await expectRefused(
            await attempt({ sign, encrypt: encrypt(options) }),
            'idp.encryption_algorithm_refused',
          );
          expect(body).to.contain('RSA PKCS#1 v1.5 is not accepted');
        }
      });
    }
  });

  describe('wrapping with an encrypted assertion', () => {
    it('an encrypted assertion beside the signed plain one: idp.assertion_invalid', async () => {
      const extra = encryptAssertion(forgedAssertion(), encrypt());
      const response = await attempt({
        sign: 'both',
        tamper: (xml) => xml.replace('</samlp:Response>', `${extra}</samlp:Response>`),
      });
      await expectRefused(response, 'idp.assertion_invalid');
    });

    it('a signed plain assertion beside the encrypted one: idp.assertion_invalid', async () => {
      const browser = new SamlBrowser();
      const request = await browser.challenge(app);
      const plain = idp.responseXml(request, SP_ENTITY_ID, { sign: 'assertion' });
      const signedAssertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(plain)?.[0] ?? '';
      const form = idp.answer(request, SP_ENTITY_ID, {
        sign: 'assertion',
        encrypt: encrypt(),
        tamper: (xml) => xml.replace('</samlp:Response>', `${signedAssertion}</samlp:Response>`),
      });
      await expectRefused(await browser.post(app.acsUrl, form), 'idp.assertion_invalid');
    });

    it('an encrypted assertion hidden in the Extensions of a response whose signed assertion is plain: idp.assertion_invalid', async () => {
      const hidden = encryptAssertion(forgedAssertion(), encrypt());
      const response = await attempt({
        sign: 'assertion',
        tamper: (xml) => xml.replace('<samlp:Status>', `<samlp:Extensions>${hidden}</samlp:Extensions><samlp:Status>`),
      });
      await expectRefused(response, 'idp.assertion_invalid');
    });

    it('two encrypted assertions: idp.assertion_invalid', async () => {
      const second = encryptAssertion(forgedAssertion(), encrypt());
      const response = await attempt({
        sign: 'assertion',
        encrypt: encrypt(),
        tamper: (xml) => xml.replace('</samlp:Response>', `${second}</samlp:Response>`),
      });
      await expectRefused(response, 'idp.assertion_invalid');
    });

    it('the signed Response’s encrypted assertion swapped for one the attacker encrypted to our (public) certificate: idp.signature_invalid', async () => {
      const forged = encryptAssertion(forgedAssertion(), encrypt());
      const response = await attempt({
        sign: 'response',
        encrypt: encrypt(),
        tamper: (xml) => xml.replace(/<saml:EncryptedAssertion[\s\S]*<\/saml:EncryptedAssertion>/, forged),
      });
      await expectRefused(response, 'idp.signature_invalid');
    });

    it('a forged assertion encrypted to our certificate, in an unsigned response: refused for want of a signature', async () => {
      const browser = new SamlBrowser();
      const request = await browser.challenge(app);
      const forged = assertionXml({
        issuer: idp.entityId,
        nameId: 'evil@example.com',
        audiences: [SP_ENTITY_ID],
        recipient: request.acsUrl,
        inResponseTo: request.id,
      });
      const form = idp.answer(request, SP_ENTITY_ID, { sign: 'none', assertionXml: forged, encrypt: encrypt() });
      await expectRefused(await browser.post(app.acsUrl, form), 'idp.signature_missing');
    });

    it('a decrypted forged assertion wrapping the signed one: idp.assertion_invalid', async () => {
      const browser = new SamlBrowser();
      const request = await browser.challenge(app);
      const fields = {
        issuer: idp.entityId,
        audiences: [SP_ENTITY_ID],
        recipient: request.acsUrl,
        inResponseTo: request.id,
      };
      const signed = signElement(assertionXml({ ...fields, nameId: 'admin@example.com' }), 'Assertion', {
        credential: idp.credential,
      });
      const forged = assertionXml({ ...fields, nameId: 'evil@example.com' }).replace(
        '</saml:Assertion>',
        `<saml:Advice>${signed}</saml:Advice></saml:Assertion>`,
      );
      const form = idp.answer(request, SP_ENTITY_ID, { sign: 'none', assertionXml: forged, encrypt: encrypt() });
      await expectRefused(await browser.post(app.acsUrl, form), 'idp.assertion_invalid');
    });

    it('an EncryptedID outside the encrypted assertion: idp.assertion_invalid', async () => {
      const response = await attempt({
        sign: 'assertion',
        encrypt: encrypt(),
        tamper: (xml) =>
          xml.replace(
            '<samlp:Status>',
            `<samlp:Extensions><saml:EncryptedID xmlns:saml="${SAML_ASSERTION}"/></samlp:Extensions><samlp:Status>`,
          ),
      });
      await expectRefused(response, 'idp.assertion_invalid');
    });
  });

  describe('the decrypted assertion gets every check a plain one gets', () => {
    const cases: Array<[string, AnswerOptions, string]> = [
      [
        'unsigned inside a signed Response, with RequireSignedAssertions',
        { sign: 'response', encrypt: encrypt() },
        'idp.assertion_unsigned',
      ],
      [
        'signed by an untrusted key',
        { signing: { credential: makeSigningCredential({ commonName: 'attacker' }) }, encrypt: encrypt() },
        'idp.signature_invalid',
      ],
      [
        'SHA-1 signed',
        { signing: { signatureAlgorithm: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1' }, encrypt: encrypt() },
        'idp.signature_algorithm_refused',
      ],
      [
        'for another audience',
        { assertion: { audiences: ['https://other-sp.example'] }, encrypt: encrypt() },
        'idp.audience_mismatch',
      ],
      [
        'for another recipient',
        { assertion: { recipient: 'https://other-sp.example/acs' }, encrypt: encrypt() },
        'idp.recipient_mismatch',
      ],
      [
        'answering another request',
        { assertion: { inResponseTo: '_another' }, encrypt: encrypt() },
        'idp.in_response_to_mismatch',
      ],
      [
        'expired',
        {
          assertion: { notBefore: Date.now() - 30 * 60_000, notOnOrAfter: Date.now() - 10 * 60_000 },
          encrypt: encrypt(),
        },
        'idp.assertion_expired',
      ],
      [
        'from another issuer',
        { assertion: { issuer: 'https://evil-idp.example' }, encrypt: encrypt() },
        'idp.issuer_mismatch',
      ],
    ];
    for (const [label, options, code] of cases) {
      it(`${label}: ${code}`, async () => {
        await expectRefused(await attempt(options), code);
      });
    }

    it('signed, but not schema-valid (the schema reads the response with the assertion decrypted): idp.schema_invalid', async () => {
      const browser = new SamlBrowser();
      const request = await browser.challenge(app);
      const invalid = assertionXml({
        issuer: idp.entityId,
        nameId: 'admin@example.com',
        audiences: [SP_ENTITY_ID],
        recipient: request.acsUrl,
        inResponseTo: request.id,
      }).replace('<saml:Subject>', '<saml:Unexpected/><saml:Subject>');
      const form = idp.answer(request, SP_ENTITY_ID, { assertionXml: invalid, encrypt: encrypt() });
      await expectRefused(await browser.post(app.acsUrl, form), 'idp.schema_invalid');
    });

    it('a session the identity provider ended (SessionNotOnOrAfter in the past): idp.assertion_expired', async () => {
      const browser = new SamlBrowser();
      const request = await browser.challenge(app);
      const ended = assertionXml({
        issuer: idp.entityId,
        nameId: 'admin@example.com',
        audiences: [SP_ENTITY_ID],
        recipient: request.acsUrl,
        inResponseTo: request.id,
      }).replace('<saml:AuthnStatement ', '<saml:AuthnStatement SessionNotOnOrAfter="2001-01-01T00:00:00Z" ');
      const form = idp.answer(request, SP_ENTITY_ID, { assertionXml: ended, encrypt: encrypt() });
      await expectRefused(await browser.post(app.acsUrl, form), 'idp.assertion_expired');
    });

    it('a replayed encrypted response: the flow was used up', async () => {
      const browser = new SamlBrowser();
      const request = await browser.challenge(app);
      const form = idp.answer(request, SP_ENTITY_ID, { encrypt: encrypt() });
      expect((await browser.post(app.acsUrl, form)).status).to.equal(302);
      await expectRefused(await browser.post(app.acsUrl, form), 'idp.flow_missing');
    });
  });

  function forgedAssertion(): string {
    return assertionXml({
      issuer: idp.entityId,
      nameId: 'evil@example.com',
      audiences: [SP_ENTITY_ID],
      recipient: `${app.url}/Saml2/Acs`,
      inResponseTo: '_forged',
    });
  }
});

function flipLastByte(bytes: Buffer): Buffer {
  const copy = Buffer.from(bytes);
  copy[copy.length - 1] = (copy[copy.length - 1] ?? 0) ^ 0x01;
  return copy;
}

function flipByte(index: number): (bytes: Buffer) => Buffer {
  return (bytes) => {
    const copy = Buffer.from(bytes);
    copy[index] = (copy[index] ?? 0) ^ 0x55;
    return copy;
  };
}

/** Whole AES blocks of spaces whose last byte, the padding length, is 0: never valid padding. */
function zeroPadded(length: number): Buffer {
  const bytes = Buffer.alloc(length, 0x20);
  bytes[length - 1] = 0;
  return bytes;
}
