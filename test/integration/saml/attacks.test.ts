import { expect } from 'chai';
import { DIGEST_SHA1, RSA_SHA1, SAML_ASSERTION } from '../../../scripts/saml/saml-response.js';
import { RESPONSE_SIZE } from '../../../src/adapters/saml/message-size.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { SamlBrowser, SP_ENTITY_ID, startSamlApp, type SamlApp } from '../../support/saml-app.js';
import { SamlTestIdentityProvider, type AnswerOptions } from '../../support/saml-identity-provider.js';
import { wrap, WRAPPING_SIGNS, type WrappingAttack } from '../../support/saml-wrapping.js';

/** A refusal: the error page with the code, no session cookie, no redirect. */
async function expectRefused(response: Response, code: string, status = 400): Promise<void> {
  const body = await response.text();
  expect(response.status, body.slice(0, 400)).to.equal(status);
  expect(body).to.contain(`<code>${code}</code>`);
  expect(response.headers.get('location')).to.equal(null);
  expect(response.headers.getSetCookie().join('\n')).not.to.match(/gatehouse\.sid=/);
}

describe('SAML2 attack catalogue: every forged, replayed or misdirected response is refused, no session', function () {
  this.timeout(30_000);
  let idp: SamlTestIdentityProvider;
  let app: SamlApp;

  before(async () => {
    idp = await SamlTestIdentityProvider.start();
    // Every attempt starts a sign-in from this one address: lift the per-client limit.
    app = await startSamlApp(idp, { ProjectTemplate__Session__PendingSignInsPerClient: '1000' });
  });
  after(async () => {
    await app?.close();
    await idp?.close();
  });

  async function attempt(options: AnswerOptions): Promise<{ response: Response; browser: SamlBrowser }> {
    const browser = new SamlBrowser();
    return { response: await browser.signIn(app, idp, options), browser };
  }

  describe('signature wrapping (XSW1-XSW8)', () => {
    for (const attack of ['XSW1', 'XSW2', 'XSW3', 'XSW4', 'XSW5', 'XSW6', 'XSW7', 'XSW8'] as WrappingAttack[]) {
      it(`${attack}: refused before any forged value is read`, async () => {
        const sign = WRAPPING_SIGNS[attack];
        const { response, browser } = await attempt({ sign, tamper: (xml) => wrap(xml, attack) });
        await expectRefused(response, 'idp.assertion_invalid');
        expect(browser.sessionToken(app.url)).to.equal(undefined);
      });
    }
  });

  describe('signatures', () => {
    it('no signature at all: idp.signature_missing', async () => {
      await expectRefused((await attempt({ sign: 'none' })).response, 'idp.signature_missing');
    });

    it('the signature removed after signing: idp.signature_missing', async () => {
      const strip = (xml: string) => xml.replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/g, '');
      await expectRefused((await attempt({ tamper: strip })).response, 'idp.signature_missing');
    });

    it('re-signed by an untrusted key that carries its own certificate in KeyInfo: idp.signature_invalid', async () => {
      const attacker = makeSigningCredential({ commonName: 'attacker.example' });
      const { response } = await attempt({ signing: { credential: attacker, keyInfo: true } });
      await expectRefused(response, 'idp.signature_invalid');
    });

    it('a signed value changed after signing: idp.signature_invalid', async () => {
      const tamper = (xml: string) => xml.replace('Ada Admin', 'Eve Evil');
      await expectRefused((await attempt({ tamper })).response, 'idp.signature_invalid');
    });

    it('RSA-SHA1 with a SHA-1 digest: idp.signature_algorithm_refused', async () => {
      const { response } = await attempt({ signing: { signatureAlgorithm: RSA_SHA1, digestAlgorithm: DIGEST_SHA1 } });
      await expectRefused(response, 'idp.signature_algorithm_refused');
    });

    it('RSA-SHA1 over a SHA-256 digest: idp.signature_algorithm_refused', async () => {
      await expectRefused(
        (await attempt({ signing: { signatureAlgorithm: RSA_SHA1 } })).response,
        'idp.signature_algorithm_refused',
      );
    });

    it('RSA-SHA256 over a SHA-1 digest: idp.signature_algorithm_refused', async () => {
      await expectRefused(
        (await attempt({ signing: { digestAlgorithm: DIGEST_SHA1 } })).response,
        'idp.signature_algorithm_refused',
      );
    });

    it('a signed Response around an unsigned Assertion, with RequireSignedAssertions: idp.assertion_unsigned', async () => {
      await expectRefused((await attempt({ sign: 'response' })).response, 'idp.assertion_unsigned');
    });
  });

  describe('the NameID', () => {
    it('a comment injected in the NameID never shortens it: the signed full value is the subject', async () => {
      const nameId = 'admin@example.com.evil.example';
      const inject = (xml: string) => xml.replace(`>${nameId}<`, '>admin@example.com<!---->.evil.example<');
      const { response, browser } = await attempt({ assertion: { nameId }, tamper: inject });
      expect(response.status).to.equal(302);
      const home = await (await browser.get(`${app.url}/`)).text();
      expect(home).to.contain(`<code>application:subject</code></td><td>${nameId}</td>`);
      expect(home).not.to.contain('<td>admin@example.com</td>');
    });
  });

  describe('audience, destination, recipient, time', () => {
    const cases: Array<[string, AnswerOptions, string]> = [
      ['another audience', { assertion: { audiences: ['https://other-sp.example'] } }, 'idp.audience_mismatch'],
      ['no AudienceRestriction', { assertion: { audiences: null } }, 'idp.audience_mismatch'],
      [
        'another Destination',
        { response: { destination: 'https://other-sp.example/acs' } },
        'idp.destination_mismatch',
      ],
      ['no Destination', { response: { destination: null } }, 'idp.destination_mismatch'],
      ['another Recipient', { assertion: { recipient: 'https://other-sp.example/acs' } }, 'idp.recipient_mismatch'],
      [
        'an expired assertion',
        { assertion: { notBefore: Date.now() - 30 * 60_000, notOnOrAfter: Date.now() - 10 * 60_000 } },
        'idp.assertion_expired',
      ],
      [
        'an expired bearer confirmation',
        { assertion: { confirmationNotOnOrAfter: Date.now() - 10 * 60_000 } },
        'idp.assertion_expired',
      ],
      [
        'a not-yet-valid assertion',
        { assertion: { notBefore: Date.now() + 10 * 60_000, notOnOrAfter: Date.now() + 20 * 60_000 } },
        'idp.assertion_not_yet_valid',
      ],
      ['no Conditions', { assertion: { conditions: false } }, 'idp.conditions_missing'],
      [
        'a holder-of-key confirmation only',
        { assertion: { confirmationMethod: 'urn:oasis:names:tc:SAML:2.0:cm:holder-of-key' } },
        'idp.subject_unconfirmed',
      ],
      ['another Issuer', { assertion: { issuer: 'https://evil-idp.example' } }, 'idp.issuer_mismatch'],
    ];
    for (const [label, options, code] of cases) {
      it(`${label}: ${code}`, async () => {
        await expectRefused((await attempt(options)).response, code);
      });
    }
  });

  describe('binding to this browser’s request', () => {
    it('an assertion answering another request (InResponseTo): idp.in_response_to_mismatch', async () => {
      await expectRefused(
        (await attempt({ assertion: { inResponseTo: '_another-request' } })).response,
        'idp.in_response_to_mismatch',
      );
    });

    it('a response replayed in the same browser: the flow was used up', async () => {
      const browser = new SamlBrowser();
      const request = await browser.challenge(app);
      const form = idp.answer(request, SP_ENTITY_ID);
      expect((await browser.post(app.acsUrl, form)).status).to.equal(302);
      await expectRefused(await browser.post(app.acsUrl, form), 'idp.flow_missing');
    });

    it('an unsolicited (IdP-initiated) response: nothing read on arrival, then refused with idp.flow_missing', async () => {
      const request = { id: '_unsolicited', issuer: '', acsUrl: app.acsUrl, relayState: undefined, xml: '' };
      const form = idp.answer(request, SP_ENTITY_ID, {
        assertion: { inResponseTo: null },
        response: { inResponseTo: null },
      });
      const stranger = new SamlBrowser();
      const first = await stranger.post(app.acsUrl, form);
      expect(first.status).to.equal(200);
      const page = await first.text();
      expect(page).to.contain('Continue signing in');
      const resent = Object.fromEntries(
        [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]),
      );
      expect(resent).to.have.property('gatehouse_resent', '1');
      await expectRefused(await stranger.post(app.acsUrl, resent), 'idp.flow_missing');
    });

    it('a response to another browser’s request, delivered to a victim with a sign-in of its own: idp.state_mismatch', async () => {
      const attacker = new SamlBrowser();
      const victim = new SamlBrowser();
      const attackersRequest = await attacker.challenge(app);
      await victim.challenge(app);
      const form = idp.answer(attackersRequest, SP_ENTITY_ID);
      await expectRefused(await victim.post(app.acsUrl, form), 'idp.state_mismatch');
      expect(victim.sessionToken(app.url)).to.equal(undefined);
    });

    it('another browser’s assertion under the victim’s own RelayState: idp.in_response_to_mismatch', async () => {
      const attacker = new SamlBrowser();
      const victim = new SamlBrowser();
      const attackersRequest = await attacker.challenge(app);
      const victimsRequest = await victim.challenge(app);
      const form = { ...idp.answer(attackersRequest, SP_ENTITY_ID), RelayState: victimsRequest.relayState ?? '' };
      await expectRefused(await victim.post(app.acsUrl, form), 'idp.in_response_to_mismatch');
    });
  });

  describe('the document itself', () => {
    it('two assertions (the second one signed too): idp.assertion_invalid', async () => {
      const browser = new SamlBrowser();
      const request = await browser.challenge(app);
      const second = idp.responseXml(request, SP_ENTITY_ID, { sign: 'assertion' });
      const secondAssertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(second)?.[0] ?? '';
      const form = idp.answer(request, SP_ENTITY_ID, {
        sign: 'assertion',
        tamper: (xml) => xml.replace('</samlp:Response>', `${secondAssertion}</samlp:Response>`),
      });
      await expectRefused(await browser.post(app.acsUrl, form), 'idp.assertion_invalid');
    });

    it('an EncryptedAssertion: refused with a message that says what to change', async () => {
      const encrypted = (xml: string) =>
        xml.replace(
          /<saml:Assertion[\s\S]*<\/saml:Assertion>/,
          `<saml:EncryptedAssertion xmlns:saml="${SAML_ASSERTION}"><xenc:EncryptedData xmlns:xenc="http://www.w3.org/2001/04/xmlenc#"/></saml:EncryptedAssertion>`,
        );
      const { response } = await attempt({ sign: 'none', tamper: encrypted });
      const body = await response.clone().text();
      await expectRefused(response, 'idp.assertion_encrypted');
      expect(body).to.contain('ask the identity provider to send it unencrypted');
    });

    it('an external entity (XXE): refused before parsing, the file never read', async () => {
      const xxe = (xml: string) =>
        `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${xml.replace('Ada Admin', '&xxe;')}`;
      const { response } = await attempt({ tamper: xxe });
      const body = await response.clone().text();
      await expectRefused(response, 'idp.response_malformed');
      expect(body).not.to.contain('root:');
    });

    it('billion laughs: refused at once', async () => {
      const laughs =
        '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
        Array.from({ length: 8 }, (_, i) => `<!ENTITY lol${i + 2} "${`&lol${i + 1};`.repeat(10)}">`).join('') +
        ']>';
      const started = performance.now();
      const { response } = await attempt({ tamper: (xml) => laughs + xml.replace('Ada Admin', '&lol9;') });
      await expectRefused(response, 'idp.response_malformed');
      expect(performance.now() - started).to.be.lessThan(2000);
    });

    it('broken base64: idp.response_malformed', async () => {
      const browser = new SamlBrowser();
      const request = await browser.challenge(app);
      const response = await browser.post(app.acsUrl, {
        SAMLResponse: 'PHNhbWxwOl%%%not-base64',
        RelayState: request.relayState ?? '',
      });
      await expectRefused(response, 'idp.response_malformed');
    });

    it('base64 of something that is not XML: idp.response_malformed', async () => {
      const browser = new SamlBrowser();
      const request = await browser.challenge(app);
      const response = await browser.post(app.acsUrl, {
        SAMLResponse: Buffer.from('<samlp:Response><unclosed>').toString('base64'),
        RelayState: request.relayState ?? '',
      });
      await expectRefused(response, 'idp.response_malformed');
    });

    it('a body over 256 KiB: 413 before it is read, the flow untouched', async () => {
      const browser = new SamlBrowser();
      const request = await browser.challenge(app);
      const huge = 'A'.repeat(256 * 1024);
      const response = await browser.post(app.acsUrl, { SAMLResponse: huge, RelayState: request.relayState ?? '' });
      expect(response.status).to.equal(413);
      expect(await response.text()).to.contain('<code>request.too_large</code>');
      // The flow was not taken: the real answer still signs the browser in.
      expect((await browser.post(app.acsUrl, idp.answer(request, SP_ENTITY_ID))).status).to.equal(302);
    });

    it(`a genuine answer padded past ${RESPONSE_SIZE.xmlBytes / 1024} KiB of XML (a comment before its root) is not parsed: 413 idp.message_too_large`, async () => {
      const pad = (bytes: number) => (xml: string) => `<!--${'x'.repeat(bytes - xml.length - 7)}-->${xml}`;
      await expectRefused(
        (await attempt({ tamper: pad(RESPONSE_SIZE.xmlBytes + 1) })).response,
        'idp.message_too_large',
        413,
      );
      expect((await attempt({ tamper: pad(RESPONSE_SIZE.xmlBytes) })).response.status, 'at the bound').to.equal(302);
    });

    it('a status other than Success: idp.provider_error naming only SAML status codes', async () => {
      const { response } = await attempt({
        response: {
          statusCode: 'urn:oasis:names:tc:SAML:2.0:status:Responder',
          secondStatusCode: 'urn:oasis:names:tc:SAML:2.0:status:AuthnFailed',
        },
        sign: 'none',
      });
      const body = await response.clone().text();
      await expectRefused(response, 'idp.provider_error');
      expect(body).to.contain('The identity provider refused the sign-in (Responder/AuthnFailed).');
    });

    it('a status code SAML does not define is not echoed', async () => {
      const { response } = await attempt({ response: { statusCode: 'urn:evil:<script>' }, sign: 'none' });
      const body = await response.clone().text();
      await expectRefused(response, 'idp.provider_error');
      expect(body).to.contain('(unrecognized status)');
      expect(body).not.to.contain('urn:evil');
    });
  });
});
