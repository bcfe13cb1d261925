import { expect } from 'chai';
import {
  startDemoIdentityProvider,
  signingKey,
  type DemoIdentityProvider,
} from '../../../scripts/demo-identity-provider.js';
import { logoutRequestXml } from '../../../scripts/saml/logout-messages.js';
import { encodeForPost, newSamlId, signElement } from '../../../scripts/saml/saml-response.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { replayKey } from '../../../src/adapters/saml/assertion-replay-cache.js';
import {
  auditEvents,
  challenge,
  CONNECTION_SP_ENTITY_ID,
  oidcConnection,
  samlChallenge,
  samlConnection,
  startWithConnections,
} from '../../support/connection-app.js';
import { deliverAnswer } from '../../support/deliver-answer.js';
import { driveOidcLogin } from '../../support/drive-oidc-login.js';
import { signLogoutToken } from '../../support/logout-tokens.js';
import { freePort, TestBrowser } from '../../support/oidc-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';
import type { RunningGatehouse } from '../../support/start-gatehouse.js';

const SECRET = 'SENTINEL-isolation-client-secret-3b7a';

/**
 * Nothing of one connection is usable at another's endpoints: two OpenID Connect
 * connections (Globex and Initech, each against its own oidc-provider) and two SAML2
 * connections (Acme and Hooli, each against its own xml-crypto-signing identity provider)
 * in one Gatehouse. Each message of A is presented at B's path, refused there, and then
 * shown to work at A's own (so the refusal is B's doing, not a broken message).
 */
describe('connections: one connection’s messages are refused at another’s endpoints', function () {
  this.timeout(20_000);
  let app: RunningGatehouse;
  let globexIdp: DemoIdentityProvider;
  let initechIdp: DemoIdentityProvider;
  let acmeIdp: SamlTestIdentityProvider;
  let hooliIdp: SamlTestIdentityProvider;
  const globexKey = signingKey();
  const sp = makeSigningCredential({ commonName: 'gatehouse-connections-signing' });

  before(async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const client = (name: string) => ({
      clientId: `${name}-client`,
      clientSecret: SECRET,
      redirectUris: [`${origin}/connections/${name}/signin-oidc`],
      postLogoutRedirectUris: [`${origin}/`],
    });
    [globexIdp, initechIdp, acmeIdp, hooliIdp] = await Promise.all([
      startDemoIdentityProvider({ clients: [client('globex')], signingKey: globexKey }),
      startDemoIdentityProvider({ clients: [client('initech')] }),
      SamlTestIdentityProvider.start(),
      SamlTestIdentityProvider.start(),
    ]);
    acmeIdp.singleLogout = true;
    hooliIdp.singleLogout = true;
    const secret = { clientSecret: SECRET };
    app = await startWithConnections(port, {
      Globex: oidcConnection('globex', ['example.test'], globexIdp.issuer, { clientId: 'globex-client', ...secret }),
      Initech: oidcConnection('initech', ['initech.test'], initechIdp.issuer, {
        clientId: 'initech-client',
        ...secret,
      }),
      Acme: samlConnection('acme', ['example.com'], acmeIdp, { signing: sp }),
      Hooli: samlConnection('hooli', ['hooli.test'], hooliIdp, { signing: sp }),
    });
  });
  after(async () => {
    await app?.close();
    await Promise.all([globexIdp?.close(), initechIdp?.close(), acmeIdp?.close(), hooliIdp?.close()]);
  });

  const signedIn = async (browser: TestBrowser) => {
    const response = await browser.get(`${app.url}/api/app-info`, { accept: 'application/json' });
    await response.body?.cancel();
    return response.status === 200;
  };
  const problemCode = async (response: Response) => {
    const text = await response.text();
    return /<code>([a-z_.]+)<\/code>/.exec(text)?.[1] ?? /"code":"([a-z_.]+)"/.exec(text)?.[1];
  };

  /** A signed-in browser at Globex, and the callback it was signed in with. */
  async function signInAtGlobex(): Promise<TestBrowser> {
    const browser = new TestBrowser();
    const callback = await driveOidcLogin(await challenge(browser, app.url, 'Globex'), 'admin', browser.jar);
    expect((await browser.get(callback.href)).status).to.equal(302);
    expect(await signedIn(browser)).to.equal(true);
    return browser;
  }

  /** A signed-in browser at Acme, and the SessionIndex (the assertion ID) of its sign-in. */
  async function signInAtAcme(): Promise<{ browser: TestBrowser; sessionIndex: string }> {
    const browser = new TestBrowser();
    const request = await samlChallenge(browser, app.url, 'Acme');
    const sessionIndex = newSamlId();
    const form = acmeIdp.answer(request, CONNECTION_SP_ENTITY_ID, { assertion: { assertionId: sessionIndex } });
    expect((await deliverAnswer(browser, { method: 'POST', url: request.acsUrl, form }, app.url)).status).to.equal(302);
    expect(await signedIn(browser)).to.equal(true);
    // What Acme's adapter records lives under Acme's scope of the replay store, where no other connection's adapter reads.
    const replays = app.gatehouse.stores.replayRecords;
    expect(await replays.get(`connection:acme:${replayKey(acmeIdp.entityId, sessionIndex)}`)).not.to.equal(undefined);
    expect(await replays.get(replayKey(acmeIdp.entityId, sessionIndex))).to.equal(undefined);
    return { browser, sessionIndex };
  }

  it("refuses an answer to Globex's flow at Initech's callback path (idp.flow_wrong_provider), redeeming no code", async () => {
    const browser = new TestBrowser();
    const callback = await driveOidcLogin(await challenge(browser, app.url, 'Globex'), 'admin', browser.jar);
    expect(callback.pathname).to.equal('/connections/globex/signin-oidc');
    const redeemed = [globexIdp.tokenRequests, initechIdp.tokenRequests];
    const elsewhere = new URL(callback);
    elsewhere.pathname = '/connections/initech/signin-oidc';
    const refused = await browser.get(elsewhere.href);
    expect(refused.status).to.equal(400);
    expect(await problemCode(refused)).to.equal('idp.flow_wrong_provider');
    expect([globexIdp.tokenRequests, initechIdp.tokenRequests], 'no code redeemed at either provider').to.deep.equal(
      redeemed,
    );
    expect(browser.sessionToken(app.url)).to.equal(undefined);
    expect(auditEvents(app.logs, 'signin.failed').at(-1)).to.include({
      provider: 'Initech',
      connection: 'Initech',
      code: 'idp.flow_wrong_provider',
    });
    // The flow was used up there: the answer cannot be taken to its own path afterwards either.
    const late = await browser.get(callback.href);
    expect(late.status).to.equal(400);
    expect(globexIdp.tokenRequests).to.equal(redeemed[0]);
    const logs = app.logs.join('\n');
    expect(logs).not.to.contain(SECRET);
    expect(logs).not.to.contain(callback.searchParams.get('code'));
  });

  it("refuses Acme's SAML response posted at Hooli's ACS, recording no assertion as used", async () => {
    const browser = new TestBrowser();
    const request = await samlChallenge(browser, app.url, 'Acme');
    const assertionId = newSamlId();
    const form = acmeIdp.answer(request, CONNECTION_SP_ENTITY_ID, { assertion: { assertionId } });
    const refused = await deliverAnswer(
      browser,
      { method: 'POST', url: `${app.url}/connections/hooli/saml2/acs`, form },
      app.url,
    );
    expect(refused.status).to.equal(400);
    expect(await problemCode(refused)).to.equal('idp.flow_wrong_provider');
    expect(browser.sessionToken(app.url)).to.equal(undefined);
    const replays = app.gatehouse.stores.replayRecords;
    for (const scope of ['connection:acme:', 'connection:hooli:', '']) {
      expect(await replays.get(`${scope}${replayKey(acmeIdp.entityId, assertionId)}`), scope).to.equal(undefined);
    }
  });

  it("refuses Acme's SAML response posted at Hooli's ACS by a browser with no flow there, and Hooli's own identity provider's response at Acme's", async () => {
    const acmeBrowser = new TestBrowser();
    const acmeRequest = await samlChallenge(acmeBrowser, app.url, 'Acme');
    const stranger = new TestBrowser();
    const hooliRequest = await samlChallenge(stranger, app.url, 'Hooli');
    // Hooli's identity provider answers Hooli's request, and the answer is taken to Acme's ACS.
    const hooliAnswer = hooliIdp.answer(hooliRequest, CONNECTION_SP_ENTITY_ID);
    const atAcme = await deliverAnswer(
      stranger,
      { method: 'POST', url: `${app.url}/connections/acme/saml2/acs`, form: hooliAnswer },
      app.url,
    );
    expect(atAcme.status).to.equal(400);
    expect(stranger.sessionToken(app.url)).to.equal(undefined);
    // Acme's answer to another browser's request, at Hooli's ACS.
    const acmeAnswer = acmeIdp.answer(acmeRequest, CONNECTION_SP_ENTITY_ID);
    const atHooli = await deliverAnswer(
      new TestBrowser(),
      { method: 'POST', url: `${app.url}/connections/hooli/saml2/acs`, form: acmeAnswer },
      app.url,
    );
    expect(atHooli.status).to.equal(400);
    // Acme's own answer still works where it belongs.
    const own = await deliverAnswer(
      acmeBrowser,
      { method: 'POST', url: acmeRequest.acsUrl, form: acmeAnswer },
      app.url,
    );
    expect(own.status).to.equal(302);
  });

  it("refuses a logout token of Globex's provider at Initech's back-channel logout path, ending nothing", async () => {
    const browser = await signInAtGlobex();
    const token = () =>
      signLogoutToken(globexKey, { issuer: globexIdp.issuer, audience: 'globex-client', claims: { sub: 'admin' } });
    const post = async (name: string) =>
      fetch(`${app.url}/connections/${name}/backchannel-logout`, {
        method: 'POST',
        body: new URLSearchParams({ logout_token: await token() }),
      });
    const refused = await post('initech');
    expect(refused.status).to.equal(400);
    expect(await signedIn(browser), 'still signed in').to.equal(true);
    // The same kind of token at Globex's own path ends the session.
    const accepted = await post('globex');
    expect(accepted.status).to.equal(200);
    expect(await signedIn(browser)).to.equal(false);
  });

  it("refuses a LogoutRequest of Acme's identity provider at Hooli's logout path, ending nothing", async () => {
    const { browser, sessionIndex } = await signInAtAcme();
    const logoutRequest = (path: string) => {
      const xml = logoutRequestXml({
        issuer: acmeIdp.entityId,
        destination: `${app.url}${path}`,
        nameId: 'admin@example.com',
        sessionIndexes: [sessionIndex],
      });
      return fetch(`${app.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
        body: new URLSearchParams({
          SAMLRequest: encodeForPost(signElement(xml, 'LogoutRequest', { credential: acmeIdp.credential })),
        }),
      });
    };
    const refused = await logoutRequest('/connections/hooli/saml2/logout');
    expect(refused.status).to.equal(400);
    expect(await signedIn(browser), 'still signed in').to.equal(true);
    const accepted = await logoutRequest('/connections/acme/saml2/logout');
    expect(accepted.status).to.equal(302);
    expect(await signedIn(browser)).to.equal(false);
  });
});
