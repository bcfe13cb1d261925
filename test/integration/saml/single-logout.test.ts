import { expect } from 'chai';
import { readRedirectedMessage } from '../../../scripts/saml/authn-request.js';
import {
  logoutRequestXml,
  logoutResponseXml,
  redirectUrl,
  RSA_SHA1_URI,
  type LogoutRequestFields,
} from '../../../scripts/saml/logout-messages.js';
import { encodeForPost, newSamlId, signElement } from '../../../scripts/saml/saml-response.js';
import { makeSigningCredential, type SigningCredential } from '../../../scripts/saml/signing-credential.js';
import {
  expectCode,
  startSingleLogoutApp,
  SamlBrowser,
  singleLogoutSettings,
  SP_ENTITY_ID,
  startSamlApp,
  type SamlApp,
} from '../../support/saml-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';

const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';

describe('SAML2 single logout through the app (xml-crypto and node:crypto signed messages)', function () {
  this.timeout(30_000);
  const sp = makeSigningCredential({ commonName: 'gatehouse-sp.example' });
  let idp: SamlTestIdentityProvider;
  let app: SamlApp;
  let sloUrl: string;
  let close: (() => Promise<void>) | undefined;
  before(async () => ({ idp, app, sloUrl, close } = await startSingleLogoutApp(sp)));
  after(() => close?.());

  /** A browser signed in as `user`, with the SessionIndex of its sign-in. */
  async function signedIn(user: 'admin' | 'user' = 'admin') {
    const browser = new SamlBrowser();
    const sessionIndex = newSamlId();
    const response = await browser.signIn(app, idp, { user, assertion: { assertionId: sessionIndex } });
    expect(response.status, await response.clone().text()).to.equal(302);
    return { browser, sessionIndex };
  }
  const isSignedIn = async (browser: SamlBrowser) =>
    (await browser.get(`${app.url}/api/app-info`, { accept: 'application/json' })).status === 200;

  const request = (fields: Partial<LogoutRequestFields> = {}) =>
    logoutRequestXml({ issuer: idp.entityId, destination: sloUrl, nameId: 'admin@example.com', ...fields });
  const signedPost = (xml: string, localName: string, credential = idp.credential) =>
    signElement(xml, localName, { credential });
  const post = (field: string, xml: string) =>
    fetch(sloUrl, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams({ [field]: encodeForPost(xml) }),
    });
  const get = (url: string) => fetch(url, { redirect: 'manual', headers: { accept: 'text/html' } });

  it('publishes the signing certificate and both single logout bindings in the service-provider metadata', async () => {
    const xml = await (await fetch(app.acsUrl)).text();
    expect(xml).to.contain(
      `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${sp.certificateBody}</ds:X509Certificate>`,
    );
    for (const binding of ['HTTP-Redirect', 'HTTP-POST']) {
      expect(xml).to.contain(
        `<md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:${binding}" Location="${sloUrl}"/>`,
      );
    }
    expect(xml).to.contain('AuthnRequestsSigned="false"');
    expect(xml).not.to.contain('PRIVATE KEY');
  });

  it('IdP-initiated, HTTP-Redirect: ends every session of the NameID and answers with a signed LogoutResponse', async () => {
    const first = await signedIn();
    const second = await signedIn();
    const other = await signedIn('user');
    const id = newSamlId();
    const logsBefore = app.logs.length;
    const response = await get(
      redirectUrl(sloUrl, 'SAMLRequest', request({ id }), { credential: idp.credential, relayState: 'rs-1' }),
    );
    expect(response.status, await response.clone().text()).to.equal(302);
    const answer = readRedirectedMessage(response.headers.get('location') ?? '');
    expect(answer.field).to.equal('SAMLResponse');
    expect(answer.signatureValid(sp.certificatePem), 'signed with the SP key, over the query as sent').to.equal(true);
    expect(answer.signatureValid(idp.credential.certificatePem)).to.equal(false);
    expect(answer.document.localName).to.equal('LogoutResponse');
    expect(answer.document.getAttribute('InResponseTo')).to.equal(id);
    expect(answer.relayState, 'the RelayState goes back unchanged').to.equal('rs-1');
    expect(answer.document.getAttribute('Destination')).to.equal(idp.sloUrl);
    expect(answer.document.getElementsByTagNameNS(ASSERTION, 'Issuer')[0]?.textContent).to.equal(SP_ENTITY_ID);
    expect(answer.document.getElementsByTagNameNS(PROTOCOL, 'StatusCode')[0]?.getAttribute('Value')).to.equal(
      'urn:oasis:names:tc:SAML:2.0:status:Success',
    );
    expect(await isSignedIn(first.browser)).to.equal(false);
    expect(await isSignedIn(second.browser)).to.equal(false);
    expect(await isSignedIn(other.browser), 'another user is untouched').to.equal(true);
    const audit = app.logs
      .slice(logsBefore)
      .filter((line) => line.includes('"audit":true'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(audit.filter((event) => event.event === 'signout' || event.type === 'signout')).to.have.lengthOf(2);
    expect(audit.find((event) => (event.event ?? event.type) === 'sessions.ended')).to.include({
      by: 'provider',
      cause: 'provider_logout',
      count: 2,
    });
  });

  it('IdP-initiated, HTTP-POST with an enveloped signature: with a SessionIndex, only that session ends', async () => {
    const first = await signedIn();
    const second = await signedIn();
    const response = await post(
      'SAMLRequest',
      signedPost(request({ sessionIndexes: [first.sessionIndex] }), 'LogoutRequest'),
    );
    expect(response.status, await response.clone().text()).to.equal(302);
    expect(readRedirectedMessage(response.headers.get('location') ?? '').signatureValid(sp.certificatePem)).to.equal(
      true,
    );
    expect(await isSignedIn(first.browser)).to.equal(false);
    expect(await isSignedIn(second.browser)).to.equal(true);
  });

  const stranger = makeSigningCredential({ commonName: 'stranger.example' });
  const hostile: Array<
    [
      string,
      string,
      () => Partial<LogoutRequestFields>,
      { credential?: SigningCredential; unsigned?: true; sigAlg?: string },
    ]
  > = [
    ['unsigned', 'idp.logout_signature_missing', () => ({}), { unsigned: true }],
    ['signed by another key', 'idp.logout_signature_invalid', () => ({}), { credential: stranger }],
    ['from another issuer', 'idp.logout_issuer_mismatch', () => ({ issuer: 'https://evil.example/idp' }), {}],
    [
      'for another destination',
      'idp.logout_destination_mismatch',
      () => ({ destination: 'https://elsewhere.example/slo' }),
      {},
    ],
    ['without a destination', 'idp.logout_destination_mismatch', () => ({ destination: null }), {}],
    ['issued ten minutes ago', 'idp.logout_expired', () => ({ issuedAt: Date.now() - 10 * 60_000 }), {}],
    ['issued in the future', 'idp.logout_expired', () => ({ issuedAt: Date.now() + 10 * 60_000 }), {}],
    ['past its NotOnOrAfter', 'idp.logout_expired', () => ({ notOnOrAfter: Date.now() - 5 * 60_000 }), {}],
  ];
  for (const binding of ['HTTP-Redirect', 'HTTP-POST'] as const) {
    for (const [label, code, fields, how] of hostile) {
      it(`${binding}: a LogoutRequest ${label} is refused (${code}) and ends nothing`, async () => {
        const { browser } = await signedIn();
        const xml = request(fields());
        const credential = how.credential ?? idp.credential;
        const response =
          binding === 'HTTP-Redirect'
            ? await get(redirectUrl(sloUrl, 'SAMLRequest', xml, how.unsigned ? {} : { credential }))
            : await post('SAMLRequest', how.unsigned ? xml : signedPost(xml, 'LogoutRequest', credential));
        await expectCode(response, 400, code);
        expect(await isSignedIn(browser)).to.equal(true);
      });
    }
    it(`${binding}: a replayed LogoutRequest ID is refused the second time`, async () => {
      const xml = request({ nameId: 'nobody@example.com' });
      const send = () =>
        binding === 'HTTP-Redirect'
          ? get(redirectUrl(sloUrl, 'SAMLRequest', xml, { credential: idp.credential }))
          : post('SAMLRequest', signedPost(xml, 'LogoutRequest'));
      expect((await send()).status).to.equal(302);
      await expectCode(await send(), 400, 'idp.logout_replayed');
    });
  }

  it('HTTP-Redirect: an RSA-SHA1 query signature is refused', async () => {
    const { browser } = await signedIn();
    const url = redirectUrl(sloUrl, 'SAMLRequest', request(), { credential: idp.credential, sigAlg: RSA_SHA1_URI });
    await expectCode(await get(url), 400, 'idp.signature_algorithm_refused');
    expect(await isSignedIn(browser)).to.equal(true);
  });

  it('HTTP-Redirect: a query whose signed parameters were changed is refused', async () => {
    const { browser } = await signedIn();
    const url = redirectUrl(sloUrl, 'SAMLRequest', request({ nameId: 'user@example.com' }), {
      credential: idp.credential,
      relayState: 'a',
    });
    await expectCode(await get(url.replace('RelayState=a', 'RelayState=b')), 400, 'idp.logout_signature_invalid');
    const signedRequest = new URL(url).searchParams.get('Signature') ?? '';
    const forged =
      redirectUrl(sloUrl, 'SAMLRequest', request(), {}) +
      `&SigAlg=${encodeURIComponent('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256')}&Signature=${encodeURIComponent(signedRequest)}`;
    await expectCode(await get(forged), 400, 'idp.logout_signature_invalid');
    expect(await isSignedIn(browser)).to.equal(true);
  });

  it('HTTP-POST: a signed LogoutRequest wrapped inside a forged one, or with its signature moved, is refused', async () => {
    const { browser } = await signedIn();
    const genuine = signedPost(request({ nameId: 'nobody@example.com' }), 'LogoutRequest');
    const inner = genuine.replace(/^<samlp:LogoutRequest /, '<samlp:LogoutRequest xmlns:x="urn:x" ');
    const wrapped = request().replace('</saml:Issuer>', `</saml:Issuer><samlp:Extensions>${inner}</samlp:Extensions>`);
    await expectCode(await post('SAMLRequest', wrapped), 400, 'idp.logout_malformed');
    // The genuine signature on a forged root (another NameID, the same ID): the digest no longer matches.
    const id = /ID="([^"]+)"/.exec(genuine)?.[1] ?? '';
    const signature = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(genuine)?.[0] ?? '';
    const moved = request({ id }).replace('</saml:Issuer>', `</saml:Issuer>${signature}`);
    await expectCode(await post('SAMLRequest', moved), 400, 'idp.logout_signature_invalid');
    expect(await isSignedIn(browser)).to.equal(true);
  });

  it('takes GET and POST only at the logout path (405 with Allow), and a POST up to 32 KiB (413 before reading more)', async () => {
    const put = await fetch(sloUrl, { method: 'PUT', headers: { accept: 'text/html' } });
    expect(put.status).to.equal(405);
    expect(put.headers.get('allow')).to.equal('GET, POST');
    const large = await fetch(sloUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: `SAMLRequest=${'A'.repeat(32 * 1024)}`,
    });
    expect(large.status).to.equal(413);
    expect(put.headers.get('cache-control')).to.equal('no-store');
  });

  it('SP-initiated: signing out ends the session here first, then sends a signed LogoutRequest; the answer lands on the signed-out login page, once', async () => {
    const { browser, sessionIndex } = await signedIn();
    const home = await (await browser.get(`${app.url}/`)).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(home)?.[1] ?? '';
    const logout = await browser.jar.fetch(`${app.url}/Account/Logout`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: app.url,
        'sec-fetch-site': 'same-origin',
      },
      body: `_csrf=${encodeURIComponent(csrf)}`,
    });
    expect(logout.status).to.equal(302);
    const sent = readRedirectedMessage(logout.headers.get('location') ?? '');
    expect(logout.headers.get('location')).to.match(new RegExp(`^${idp.sloUrl}\\?SAMLRequest=`));
    expect(sent.signatureValid(sp.certificatePem)).to.equal(true);
    expect(sent.document.localName).to.equal('LogoutRequest');
    expect(sent.document.getElementsByTagNameNS(ASSERTION, 'NameID')[0]?.textContent).to.equal('admin@example.com');
    expect(sent.document.getElementsByTagNameNS(PROTOCOL, 'SessionIndex')[0]?.textContent).to.equal(sessionIndex);
    expect(sent.document.getAttribute('Destination')).to.equal(idp.sloUrl);
    expect(await isSignedIn(browser), 'signed out here before the browser leaves').to.equal(false);

    const inResponseTo = sent.document.getAttribute('ID') ?? '';
    const answer = redirectUrl(
      sloUrl,
      'SAMLResponse',
      logoutResponseXml({ issuer: idp.entityId, destination: sloUrl, inResponseTo }),
      { credential: idp.credential },
    );
    const landed = await browser.get(answer);
    expect(landed.status).to.equal(302);
    expect(landed.headers.get('location')).to.equal('/Account/Login');
    expect(await (await browser.get(`${app.url}/Account/Login`)).text()).to.contain('You have been signed out.');
    await expectCode(await browser.get(answer), 400, 'idp.logout_unexpected');
  });

  it('SP-initiated answers: unknown InResponseTo, unsigned, another key, wrong issuer or destination are refused (both bindings)', async () => {
    const answers: Array<[string, string, (xml: string) => Promise<Response>]> = [];
    const response = (fields: Partial<Parameters<typeof logoutResponseXml>[0]> = {}) =>
      logoutResponseXml({ issuer: idp.entityId, destination: sloUrl, inResponseTo: newSamlId(), ...fields });
    const viaRedirect = (credential?: SigningCredential) => (xml: string) =>
      get(redirectUrl(sloUrl, 'SAMLResponse', xml, credential ? { credential } : {}));
    const viaPost = (credential?: SigningCredential) => (xml: string) =>
      post('SAMLResponse', credential ? signedPost(xml, 'LogoutResponse', credential) : xml);
    for (const [binding, send] of [
      ['redirect', viaRedirect],
      ['post', viaPost],
    ] as const) {
      answers.push([`${binding}: unknown InResponseTo`, 'idp.logout_unexpected', send(idp.credential)]);
      answers.push([`${binding}: unsigned`, 'idp.logout_signature_missing', send()]);
      answers.push([`${binding}: another key`, 'idp.logout_signature_invalid', send(stranger)]);
    }
    for (const [label, code, send] of answers)
      await expectCode(await send(response()), 400, code).catch((error: Error) => {
        throw new Error(`${label}: ${error.message}`);
      });
    await expectCode(
      await viaRedirect(idp.credential)(response({ issuer: 'https://evil.example' })),
      400,
      'idp.logout_issuer_mismatch',
    );
    await expectCode(
      await viaPost(idp.credential)(response({ destination: 'https://elsewhere.example' })),
      400,
      'idp.logout_destination_mismatch',
    );
    await expectCode(await get(sloUrl), 400, 'idp.logout_malformed');
  });

  it('a sign-in whose answer arrives after the identity provider logged its SessionIndex out is refused', async () => {
    const browser = new SamlBrowser();
    const pending = await browser.challenge(app);
    const sessionIndex = newSamlId();
    const logout = await get(
      redirectUrl(sloUrl, 'SAMLRequest', request({ sessionIndexes: [sessionIndex] }), { credential: idp.credential }),
    );
    expect(logout.status).to.equal(302);
    const late = await browser.post(
      app.acsUrl,
      idp.answer(pending, SP_ENTITY_ID, { assertion: { assertionId: sessionIndex } }),
    );
    await expectCode(late, 400, 'idp.session_ended');
    expect(await isSignedIn(browser)).to.equal(false);
  });

  it('never writes the signing key, or a message, to the log', async () => {
    const keyBody = sp.privateKeyPem.replace(/-----[A-Z ]+-----|\s/g, '');
    const logs = app.logs.join('\n');
    for (let start = 0; start + 40 <= keyBody.length; start += 200)
      expect(logs).not.to.contain(keyBody.slice(start, start + 40));
    expect(logs).to.contain('SAMLRequest=[REDACTED]');
    expect(logs).not.to.match(/(SAMLRequest|SAMLResponse|Signature)=(?!\[REDACTED\])/);
    // The audit trail names the subject; no other line names the NameID.
    const plain = app.logs.filter((line) => !line.includes('"audit":true')).join('\n');
    expect(plain).not.to.contain('admin@example.com');
  });
});

describe('SAML2 single logout: when the identity provider cannot be reached through the browser', function () {
  this.timeout(30_000);
  const sp = makeSigningCredential({ commonName: 'gatehouse-sp.example' });
  const running: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const item of running.splice(0).reverse()) await item.close();
  });

  async function signOutOf(metadata: (idp: SamlTestIdentityProvider) => string | undefined) {
    const idp = await SamlTestIdentityProvider.start();
    running.push(idp);
    idp.singleLogout = true;
    idp.metadataOverride = metadata(idp);
    const app = await startSamlApp(idp, singleLogoutSettings(sp));
    running.push(app);
    const browser = new SamlBrowser();
    expect((await browser.signIn(app, idp)).status).to.equal(302);
    const home = await (await browser.get(`${app.url}/`)).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(home)?.[1] ?? '';
    const logout = await browser.jar.fetch(`${app.url}/Account/Logout`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: app.url,
        'sec-fetch-site': 'same-origin',
      },
      body: `_csrf=${encodeURIComponent(csrf)}`,
    });
    const signedIn = (await browser.get(`${app.url}/api/app-info`, { accept: 'application/json' })).status === 200;
    return { logout, signedIn, logs: app.logs.join('\n') };
  }

  it('metadata without a SingleLogoutService: signed out here only, straight to the login page', async () => {
    const { logout, signedIn } = await signOutOf((idp) => idp.metadata().replace(/<md:SingleLogoutService[^>]*>/g, ''));
    expect(logout.headers.get('location')).to.equal('/Account/Login');
    expect(signedIn).to.equal(false);
  });

  it('metadata without a SingleLogoutService: an IdP-initiated LogoutRequest still ends the sessions, and lands on the signed-out login page (no answer to send)', async () => {
    const idp = await SamlTestIdentityProvider.start();
    running.push(idp);
    const app = await startSamlApp(idp, singleLogoutSettings(sp));
    running.push(app);
    const browser = new SamlBrowser();
    expect((await browser.signIn(app, idp)).status).to.equal(302);
    const xml = logoutRequestXml({
      issuer: idp.entityId,
      destination: `${app.url}/Saml2/Logout`,
      nameId: 'admin@example.com',
    });
    const response = await browser.get(
      redirectUrl(`${app.url}/Saml2/Logout`, 'SAMLRequest', xml, { credential: idp.credential }),
    );
    expect(response.status).to.equal(302);
    expect(response.headers.get('location')).to.equal('/Account/Login');
    expect((await browser.get(`${app.url}/api/app-info`, { accept: 'application/json' })).status).not.to.equal(200);
  });

  it('a SingleLogoutService on another origin than MetadataUrl (the CSP would block it): signed out here only, with a warning', async () => {
    const { logout, signedIn, logs } = await signOutOf((idp) =>
      idp.metadata().replaceAll(idp.sloUrl, idp.sloUrl.replace('127.0.0.1', 'localhost')),
    );
    expect(logout.headers.get('location')).to.equal('/Account/Login');
    expect(signedIn).to.equal(false);
    expect(logs).to.contain('the SingleLogoutService is on another origin than MetadataUrl');
  });
});

describe('SAML2 signed AuthnRequests', function () {
  this.timeout(30_000);
  const sp = makeSigningCredential({ commonName: 'gatehouse-sp.example' });
  const running: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const item of running.splice(0).reverse()) await item.close();
  });

  it('SignAuthnRequests: the redirect carries an RSA-SHA256 query signature by the SP key; metadata that wants signed requests is accepted', async () => {
    const idp = await SamlTestIdentityProvider.start();
    running.push(idp);
    idp.wantAuthnRequestsSigned = true;
    const saml = 'ProjectTemplate__Authentication__Providers__Saml2__';
    const app = await startSamlApp(idp, {
      [`${saml}SigningCertificate`]: sp.certificatePem,
      [`${saml}SigningKey`]: sp.privateKeyPem,
      [`${saml}SignAuthnRequests`]: 'true',
    });
    running.push(app);
    const browser = new SamlBrowser();
    const challenge = await browser.jar.fetch(`${app.url}/External/Challenge?provider=Saml2`);
    expect(challenge.status).to.equal(302);
    const location = challenge.headers.get('location') ?? '';
    const sent = readRedirectedMessage(location);
    expect(sent.sigAlg).to.equal('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    expect(sent.signatureValid(sp.certificatePem)).to.equal(true);
    expect(sent.relayState).to.be.a('string');
    expect(new URL(location).searchParams.getAll('Signature')).to.have.lengthOf(1);
    expect(sent.document.getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'Signature')).to.have.lengthOf(0);
    const xml = await (await fetch(app.acsUrl)).text();
    expect(xml).to.contain('AuthnRequestsSigned="true"');
    expect(xml).to.contain(`<ds:X509Certificate>${sp.certificateBody}</ds:X509Certificate>`);
    expect(xml).not.to.contain('SingleLogoutService');
    // The whole sign-in still works.
    const request = await browser.challenge(app);
    expect((await browser.post(app.acsUrl, idp.answer(request, SP_ENTITY_ID))).status).to.equal(302);
  });

  it('without SignAuthnRequests the request is unsigned, and metadata that wants signed requests is refused naming the key', async () => {
    const idp = await SamlTestIdentityProvider.start();
    running.push(idp);
    const app = await startSamlApp(idp);
    running.push(app);
    const challenge = await fetch(`${app.url}/External/Challenge?provider=Saml2`, { redirect: 'manual' });
    const sent = readRedirectedMessage(challenge.headers.get('location') ?? '');
    expect(sent.sigAlg).to.equal(undefined);
    idp.wantAuthnRequestsSigned = true;
    const fresh = await startSamlApp(idp);
    running.push(fresh);
    const refused = await fetch(`${fresh.url}/External/Challenge?provider=Saml2`, {
      redirect: 'manual',
      headers: { accept: 'text/html' },
    });
    const body = await refused.text();
    expect(refused.status).to.equal(503);
    expect(body).to.contain('Saml2:SignAuthnRequests');
  });
});
