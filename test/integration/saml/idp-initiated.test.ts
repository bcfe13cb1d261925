import { expect } from 'chai';
import { RESPONSE_SIZE } from '../../../src/adapters/saml/message-size.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { continuationOf } from '../../support/deliver-answer.js';
import { encryptionSettings, SamlBrowser, SP_ENTITY_ID, startSamlApp, type SamlApp } from '../../support/saml-app.js';
import { SamlTestIdentityProvider, type AnswerOptions } from '../../support/saml-identity-provider.js';

const LANDING = '/api/app-info';

/**
 * An IdP-initiated sign-in as a browser delivers it: the identity provider's page posts it
 * cross-site (no cookie of ours travels), Gatehouse answers with its page that posts it
 * again from its own origin, and that second POST is the one read.
 */
async function deliver(browser: SamlBrowser, app: SamlApp, form: Record<string, string>): Promise<Response> {
  const first = await fetch(app.acsUrl, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' });
  expect(first.status).to.equal(200);
  const { action, fields } = continuationOf(await first.text(), app.url);
  return browser.post(action, fields);
}

async function expectRefused(response: Response, code: string, browser: SamlBrowser, app: SamlApp): Promise<void> {
  const body = await response.text();
  expect(response.status, body.slice(0, 400)).to.equal(400);
  expect(body).to.contain(`<code>${code}</code>`);
  expect(response.headers.get('location')).to.equal(null);
  expect(browser.sessionToken(app.url)).to.equal(undefined);
}

describe('SAML2 IdP-initiated sign-in (AllowIdpInitiated)', function () {
  this.timeout(30_000);
  let idp: SamlTestIdentityProvider;
  let allowed: SamlApp;
  let refused: SamlApp;

  before(async () => {
    idp = await SamlTestIdentityProvider.start();
    const saml = 'ProjectTemplate__Authentication__Providers__Saml2__';
    allowed = await startSamlApp(idp, {
      [`${saml}AllowIdpInitiated`]: 'true',
      [`${saml}IdpInitiatedReturnUrl`]: LANDING,
      ProjectTemplate__Session__PendingSignInsPerClient: '1000',
    });
    refused = await startSamlApp(idp);
  });
  after(async () => {
    await allowed?.close();
    await refused?.close();
    await idp?.close();
  });

  const unsolicited = (options: AnswerOptions = {}, relayState?: string, app = allowed) =>
    idp.unsolicitedAnswer(app.acsUrl, SP_ENTITY_ID, options, relayState);

  it('off (the default): an unsolicited response is refused as before, idp.flow_missing', async () => {
    const browser = new SamlBrowser();
    await expectRefused(
      await deliver(browser, refused, unsolicited({}, undefined, refused)),
      'idp.flow_missing',
      browser,
      refused,
    );
  });

  it('on: a visitor with no cookie at all is signed in and lands on IdpInitiatedReturnUrl', async () => {
    const browser = new SamlBrowser();
    const response = await deliver(browser, allowed, unsolicited());
    expect(response.status, await response.clone().text()).to.equal(302);
    expect(response.headers.get('location')).to.equal(LANDING);
    const home = await (await browser.get(`${allowed.url}/`)).text();
    expect(home).to.contain('Welcome, Ada Admin');
    expect(home).to.contain('<code>application:subject</code></td><td>admin@example.com');
    expect(home).to.contain('<code>application:role</code></td><td>Administrator');
  });

  it('is told apart in the audit trail: signin.succeeded with cause idp_initiated, a sign-in the app started without it', async () => {
    const signIns = (from: number) =>
      allowed.logs.slice(from).filter((line) => line.includes('"event":"signin.succeeded"'));
    const beforeUnsolicited = allowed.logs.length;
    expect((await deliver(new SamlBrowser(), allowed, unsolicited())).status).to.equal(302);
    expect(signIns(beforeUnsolicited)).to.have.length(1);
    expect(signIns(beforeUnsolicited)[0]).to.contain('"cause":"idp_initiated"');
    const beforeSolicited = allowed.logs.length;
    expect((await new SamlBrowser().signIn(allowed, idp)).status).to.equal(302);
    expect(signIns(beforeSolicited)).to.have.length(1);
    expect(signIns(beforeSolicited)[0]).not.to.contain('"cause"');
  });

  it('replaces a browser’s earlier sign-in under a fresh session id', async () => {
    const browser = new SamlBrowser();
    expect((await browser.signIn(allowed, idp, { user: 'user' })).status).to.equal(302);
    const before = browser.sessionToken(allowed.url);
    expect(before).to.be.a('string');
    expect((await deliver(browser, allowed, unsolicited())).status).to.equal(302);
    const after = browser.sessionToken(allowed.url);
    expect(after).to.be.a('string');
    expect(after).not.to.equal(before);
    expect(await (await browser.get(`${allowed.url}/`)).text()).to.contain('Welcome, Ada Admin');
    const stale = await fetch(`${allowed.url}/api/app-info`, {
      headers: { cookie: `gatehouse.sid=${before}`, accept: 'application/json' },
      redirect: 'manual',
    });
    expect(stale.status, 'the earlier session id signs nobody in').to.equal(401);
  });

  it('lands on a RelayState that is a local URL', async () => {
    const browser = new SamlBrowser();
    const response = await deliver(browser, allowed, unsolicited({}, '/api/app-info?from=portal'));
    expect(response.status).to.equal(302);
    expect(response.headers.get('location')).to.equal('/api/app-info?from=portal');
  });

  for (const relayState of ['https://evil.example/', '//evil.example', '/\\evil.example', 'javascript:alert(1)', '']) {
    it(`never follows the RelayState ${JSON.stringify(relayState)}: lands on IdpInitiatedReturnUrl`, async () => {
      const browser = new SamlBrowser();
      const response = await deliver(browser, allowed, unsolicited({}, relayState));
      expect(response.status).to.equal(302);
      expect(response.headers.get('location')).to.equal(LANDING);
    });
  }

  it('an assertion used once is refused the second time, in any browser: idp.assertion_replayed', async () => {
    const form = unsolicited();
    expect((await deliver(new SamlBrowser(), allowed, form)).status).to.equal(302);
    const again = new SamlBrowser();
    await expectRefused(await deliver(again, allowed, form), 'idp.assertion_replayed', again, allowed);
  });

  it('encrypted (an encryption key configured): a captured response signs in once; in a second browser, idp.assertion_replayed', async () => {
    const spKey = makeSigningCredential({ commonName: 'gatehouse-sp-encryption' });
    const saml = 'ProjectTemplate__Authentication__Providers__Saml2__';
    const encrypted = await startSamlApp(idp, {
      ...encryptionSettings(spKey),
      [`${saml}AllowIdpInitiated`]: 'true',
      [`${saml}IdpInitiatedReturnUrl`]: LANDING,
    });
    try {
      const form = unsolicited({ encrypt: { certificatePem: spKey.certificatePem } }, undefined, encrypted);
      expect(Buffer.from(form.SAMLResponse ?? '', 'base64').toString()).to.contain('EncryptedAssertion');
      const first = new SamlBrowser();
      expect((await deliver(first, encrypted, form)).status).to.equal(302);
      expect((await first.get(`${encrypted.url}${LANDING}`, { accept: 'application/json' })).status).to.equal(200);
      const second = new SamlBrowser();
      await expectRefused(await deliver(second, encrypted, form), 'idp.assertion_replayed', second, encrypted);
    } finally {
      await encrypted.close();
    }
  });

  describe('what a response may weigh before it is read (anyone can post one while this is on)', () => {
    /** A genuine unsolicited response, `bytes` of XML in all, padded with a comment before its root (no signature covers it). */
    const padded = (bytes: number, filler = 'x') => {
      const xml = Buffer.from(unsolicited().SAMLResponse ?? '', 'base64').toString('utf8');
      const comment = (length: number) => `<!--${filler.repeat(Math.max(0, length))}-->`;
      return { SAMLResponse: Buffer.from(comment(bytes - xml.length - 7) + xml).toString('base64') };
    };

    it(`a genuine response padded past ${RESPONSE_SIZE.xmlBytes / 1024} KiB of XML is never parsed: not unsolicited, so refused for want of a flow; within it, it signs in`, async () => {
      const over = padded(RESPONSE_SIZE.xmlBytes + 1);
      expect(Buffer.from(over.SAMLResponse, 'base64').length).to.equal(RESPONSE_SIZE.xmlBytes + 1);
      const browser = new SamlBrowser();
      await expectRefused(await deliver(browser, allowed, over), 'idp.flow_missing', browser, allowed);
      const within = padded(RESPONSE_SIZE.xmlBytes);
      expect((await deliver(new SamlBrowser(), allowed, within)).status).to.equal(302);
    });

    it(`a genuine response with more than ${RESPONSE_SIZE.markup} of markup in few bytes is never parsed either`, async () => {
      const marked = padded(RESPONSE_SIZE.markup + 8 * 1024, '=');
      const browser = new SamlBrowser();
      await expectRefused(await deliver(browser, allowed, marked), 'idp.flow_missing', browser, allowed);
    });
  });

  describe('a response that names a request is never taken for an unsolicited one', () => {
    it('an InResponseTo nobody sent, on the Response and the assertion: idp.flow_missing', async () => {
      const browser = new SamlBrowser();
      const form = unsolicited({
        assertion: { inResponseTo: '_nobody-asked' },
        response: { inResponseTo: '_nobody-asked' },
      });
      await expectRefused(await deliver(browser, allowed, form), 'idp.flow_missing', browser, allowed);
    });

    it('InResponseTo left only in the signed assertion (the unsigned Response has none): idp.flow_missing', async () => {
      const browser = new SamlBrowser();
      const form = unsolicited({ sign: 'assertion', assertion: { inResponseTo: '_nobody-asked' } });
      await expectRefused(await deliver(browser, allowed, form), 'idp.flow_missing', browser, allowed);
    });

    it('an unknown InResponseTo under a browser’s own RelayState: idp.in_response_to_mismatch', async () => {
      const browser = new SamlBrowser();
      const request = await browser.challenge(allowed);
      const form = idp.answer(request, SP_ENTITY_ID, { assertion: { inResponseTo: '_another-request' } });
      await expectRefused(await browser.post(allowed.acsUrl, form), 'idp.in_response_to_mismatch', browser, allowed);
    });
  });

  describe('every other check still applies', () => {
    const attacker = makeSigningCredential({ commonName: 'attacker.example' });
    const cases: Array<[string, AnswerOptions, string]> = [
      ['no signature', { sign: 'none' }, 'idp.signature_missing'],
      [
        'a value changed after signing',
        { tamper: (xml) => xml.replace('Ada Admin', 'Eve Evil') },
        'idp.signature_invalid',
      ],
      ['signed by a key the metadata does not list', { signing: { credential: attacker } }, 'idp.signature_invalid'],
      ['another audience', { assertion: { audiences: ['https://other-sp.example'] } }, 'idp.audience_mismatch'],
      ['another Recipient', { assertion: { recipient: 'https://other-sp.example/acs' } }, 'idp.recipient_mismatch'],
      [
        'another Destination',
        { response: { destination: 'https://other-sp.example/acs' } },
        'idp.destination_mismatch',
      ],
      [
        'an expired assertion',
        { assertion: { notBefore: Date.now() - 30 * 60_000, notOnOrAfter: Date.now() - 10 * 60_000 } },
        'idp.assertion_expired',
      ],
      ['another Issuer', { assertion: { issuer: 'https://evil-idp.example' } }, 'idp.issuer_mismatch'],
    ];
    for (const [label, options, code] of cases) {
      it(`${label}: ${code}, no session`, async () => {
        const browser = new SamlBrowser();
        await expectRefused(await deliver(browser, allowed, unsolicited(options, '/')), code, browser, allowed);
      });
    }
  });

  it('logs the refusal by its code and IDs, nothing of the message', async () => {
    const sentinel = 'SENTINEL-idp-initiated-5b1f';
    const logsBefore = allowed.logs.length;
    const form = unsolicited(
      { assertion: { audiences: ['https://other-sp.example'], nameId: sentinel } },
      `/${sentinel}`,
    );
    const browser = new SamlBrowser();
    await expectRefused(await deliver(browser, allowed, form), 'idp.audience_mismatch', browser, allowed);
    const logs = allowed.logs.slice(logsBefore).join('\n');
    expect(logs).to.contain('"stage":"unsolicited"');
    expect(logs).not.to.contain(sentinel);
    expect(logs).not.to.contain(form.SAMLResponse?.slice(0, 40));
  });
});
