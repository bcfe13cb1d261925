import { expect } from 'chai';
import { sign } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { logoutRequestXml, redirectUrl, RSA_SHA1_URI, RSA_SHA256_URI } from '../../../scripts/saml/logout-messages.js';
import { encodeForPost, newSamlId, signElement } from '../../../scripts/saml/saml-response.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { LOGOUT_MESSAGE_SIZE } from '../../../src/adapters/saml/message-size.js';
import { expectCode, SamlBrowser, startSingleLogoutApp, type SamlApp } from '../../support/saml-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';

/**
 * What a message at the single logout path costs before its signature is known good
 * (SECURITY: work before proof). Each refusal is chosen so that it would read differently
 * had the message been inflated or parsed first: content that is no DEFLATE, no base64 or
 * no XML, or a genuine signed message that would have been accepted.
 */
describe('SAML2 single logout: nothing is inflated or parsed before the size and the query signature allow it', function () {
  this.timeout(30_000);
  const sp = makeSigningCredential({ commonName: 'gatehouse-sp.example' });
  const stranger = makeSigningCredential({ commonName: 'stranger.example' });
  let idp: SamlTestIdentityProvider;
  let app: SamlApp;
  let sloUrl: string;
  let close: (() => Promise<void>) | undefined;
  before(async () => ({ idp, app, sloUrl, close } = await startSingleLogoutApp(sp)));
  after(() => close?.());

  async function signedIn() {
    const browser = new SamlBrowser();
    const sessionIndex = newSamlId();
    expect((await browser.signIn(app, idp, { assertion: { assertionId: sessionIndex } })).status).to.equal(302);
    return { browser, sessionIndex };
  }
  const isSignedIn = async (browser: SamlBrowser) =>
    (await browser.get(`${app.url}/api/app-info`, { accept: 'application/json' })).status === 200;
  const get = (url: string) => fetch(url, { redirect: 'manual', headers: { accept: 'text/html' } });
  const post = (field: string, value: string) =>
    fetch(sloUrl, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams({ [field]: value }),
    });
  /** A LogoutRequest for the signed-in user, its SessionIndexes padded to about `bytes` of XML (each at most 1,000 characters). */
  const requestOf = (sessionIndex: string, bytes = 0) => {
    const padding = Array.from({ length: Math.ceil(bytes / 1024) }, () => `_${'p'.repeat(999)}`);
    return logoutRequestXml({
      issuer: idp.entityId,
      destination: sloUrl,
      nameId: 'admin@example.com',
      sessionIndexes: [sessionIndex, ...padding],
    });
  };
  /** SAML Bindings 3.4.4.1 by hand: the query `SAMLRequest=<value>&SigAlg=...` as sent, signed with `credential`. */
  const signedQuery = (value: string, credential = idp.credential, sigAlg = RSA_SHA256_URI) => {
    const query = `SAMLRequest=${value}&SigAlg=${encodeURIComponent(sigAlg)}`;
    const digest = sigAlg === RSA_SHA1_URI ? 'sha1' : 'sha256';
    const signature = sign(digest, Buffer.from(query), credential.privateKeyPem).toString('base64');
    return `?${query}&Signature=${encodeURIComponent(signature)}`;
  };

  describe('HTTP-Redirect: the query signature first', () => {
    // Base64 of bytes that are no DEFLATE stream: inflating them would refuse as malformed.
    const notDeflate = encodeURIComponent(Buffer.from('this is no DEFLATE stream at all').toString('base64'));
    // The request: about 730 bytes that inflate to 256 KiB of elements.
    const bomb = encodeURIComponent(
      deflateRawSync(
        Buffer.from(`<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">${'<a/>'.repeat(65_000)}`),
      ).toString('base64'),
    );

    it('an unsigned message is refused before it is inflated: idp.logout_signature_missing, even when it is no DEFLATE or a DEFLATE bomb', async () => {
      const { browser } = await signedIn();
      expect(bomb.length, 'the bomb is small').to.be.lessThan(1024);
      await expectCode(await get(`${sloUrl}?SAMLRequest=${notDeflate}`), 400, 'idp.logout_signature_missing');
      await expectCode(await get(`${sloUrl}?SAMLRequest=${bomb}&RelayState=r`), 400, 'idp.logout_signature_missing');
      await expectCode(
        await get(`${sloUrl}?SAMLRequest=${bomb}&SigAlg=${encodeURIComponent('urn:x')}`),
        400,
        'idp.logout_signature_missing',
      );
      expect(await isSignedIn(browser)).to.equal(true);
    });

    it('a query signed by another key, or with SHA-1, is refused before the message is inflated', async () => {
      const { browser } = await signedIn();
      await expectCode(await get(`${sloUrl}${signedQuery(notDeflate, stranger)}`), 400, 'idp.logout_signature_invalid');
      await expectCode(await get(`${sloUrl}${signedQuery(bomb, stranger)}`), 400, 'idp.logout_signature_invalid');
      await expectCode(
        await get(`${sloUrl}${signedQuery(notDeflate, idp.credential, RSA_SHA1_URI)}`),
        400,
        'idp.signature_algorithm_refused',
      );
      expect(await isSignedIn(browser)).to.equal(true);
    });

    it('a genuine signature over content that is no DEFLATE: only then idp.logout_malformed', async () => {
      await expectCode(await get(`${sloUrl}${signedQuery(notDeflate)}`), 400, 'idp.logout_malformed');
    });

    it(`a genuinely signed LogoutRequest is read up to ${LOGOUT_MESSAGE_SIZE.xmlBytes / 1024} KiB of XML; beyond, 413 idp.message_too_large and nothing ends`, async () => {
      const large = await signedIn();
      const over = requestOf(large.sessionIndex, LOGOUT_MESSAGE_SIZE.xmlBytes);
      expect(Buffer.byteLength(over)).to.be.greaterThan(LOGOUT_MESSAGE_SIZE.xmlBytes);
      await expectCode(
        await get(redirectUrl(sloUrl, 'SAMLRequest', over, { credential: idp.credential })),
        413,
        'idp.message_too_large',
      );
      expect(await isSignedIn(large.browser)).to.equal(true);

      const within = requestOf(large.sessionIndex, LOGOUT_MESSAGE_SIZE.xmlBytes - 2048);
      expect(Buffer.byteLength(within)).to.be.within(LOGOUT_MESSAGE_SIZE.xmlBytes - 2048, LOGOUT_MESSAGE_SIZE.xmlBytes);
      expect((await get(redirectUrl(sloUrl, 'SAMLRequest', within, { credential: idp.credential }))).status).to.equal(
        302,
      );
      expect(await isSignedIn(large.browser)).to.equal(false);
    });
  });

  describe('HTTP-POST: the size first', () => {
    const signedPost = (xml: string) =>
      encodeForPost(signElement(xml, 'LogoutRequest', { credential: idp.credential }));

    it('base64 text longer than a 16 KiB message needs is refused before it is decoded: 413 idp.message_too_large, even when it is no base64', async () => {
      const { browser } = await signedIn();
      const notBase64 = '.'.repeat(Math.ceil((LOGOUT_MESSAGE_SIZE.xmlBytes * 4) / 3) + 8);
      await expectCode(await post('SAMLRequest', notBase64), 413, 'idp.message_too_large');
      // The same text within the size is decoded, and refused as what it is.
      await expectCode(await post('SAMLRequest', '.'.repeat(64)), 400, 'idp.logout_malformed');
      expect(await isSignedIn(browser)).to.equal(true);
    });

    it('a genuinely signed LogoutRequest of more than 16 KiB of XML, or with more markup than a logout message has, is not parsed: 413, nothing ends', async () => {
      const { browser, sessionIndex } = await signedIn();
      const over = requestOf(sessionIndex, LOGOUT_MESSAGE_SIZE.xmlBytes);
      await expectCode(await post('SAMLRequest', signedPost(over)), 413, 'idp.message_too_large');
      // Markup outside what the signature covers (a comment before the root), in few bytes.
      const comment = `<!--${'='.repeat(LOGOUT_MESSAGE_SIZE.markup)}-->`;
      const marked = `${comment}${signElement(requestOf(sessionIndex), 'LogoutRequest', { credential: idp.credential })}`;
      expect(Buffer.byteLength(marked)).to.be.lessThan(LOGOUT_MESSAGE_SIZE.xmlBytes / 2);
      await expectCode(await post('SAMLRequest', encodeForPost(marked)), 413, 'idp.message_too_large');
      expect(await isSignedIn(browser)).to.equal(true);
      // The same message without the comment is genuine, and ends the session.
      expect((await post('SAMLRequest', signedPost(requestOf(sessionIndex)))).status).to.equal(302);
      expect(await isSignedIn(browser)).to.equal(false);
    });
  });
});
