import { expect } from 'chai';
import {
  auditEvents,
  challenge,
  CONNECTION_SP_ENTITY_ID,
  EMAIL_ATTRIBUTE,
  oidcConnection,
  organizationRoute,
  samlChallenge,
  samlConnection,
  sessionClaims,
  startWithConnections,
} from '../../support/connection-app.js';
import { deliverAnswer } from '../../support/deliver-answer.js';
import { startMisbehavingOidcProvider, type MisbehavingProvider } from '../../support/misbehaving-oidc-provider.js';
import { freePort, TestBrowser } from '../../support/oidc-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';
import type { RunningGatehouse } from '../../support/start-gatehouse.js';

const SECRET = 'SENTINEL-guard-client-secret-6c0e';

/**
 * The organization guard through the running app: what an organization's identity
 * provider asserts beyond its own people is refused (403, nothing signed in, the refusal
 * audited with the connection), and what it claims of organizations is ignored. Globex is
 * an OpenID Connect connection against a small provider whose userinfo answer the tests
 * choose; Acme a SAML2 connection against an xml-crypto-signing identity provider.
 */
describe('connections: the organization guard at the HTTP level', function () {
  this.timeout(20_000);
  let app: RunningGatehouse;
  let globex: MisbehavingProvider;
  let acme: SamlTestIdentityProvider;

  before(async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    [globex, acme] = await Promise.all([
      startMisbehavingOidcProvider({
        clientId: 'globex-client',
        clientSecret: SECRET,
        redirectUri: `${origin}/connections/globex/signin-oidc`,
      }),
      SamlTestIdentityProvider.start(),
    ]);
    app = await startWithConnections(port, {
      Globex: oidcConnection('globex', ['example.test'], globex.issuer, {
        clientId: 'globex-client',
        clientSecret: SECRET,
      }),
      Acme: samlConnection('acme', ['example.com'], acme),
    });
  });
  beforeEach(() => globex.reset());
  after(async () => {
    await app?.close();
    await Promise.all([globex?.close(), acme?.close()]);
  });

  /** A sign-in through Globex with this userinfo answer: the callback's response. */
  async function signInAtGlobex(browser: TestBrowser, userinfo: Record<string, unknown>): Promise<Response> {
    globex.userinfoClaims = userinfo;
    const authorization = await challenge(browser, app.url, 'Globex');
    // The provider has no login page: it redirects straight back with a code.
    const answered = await fetch(authorization, { redirect: 'manual' });
    return browser.get(answered.headers.get('location') ?? '', { accept: 'application/json' });
  }

  /** A sign-in through Acme whose assertion carries these attributes (and NameID). */
  async function signInAtAcme(
    browser: TestBrowser,
    nameId: string,
    attributes: Record<string, string[]>,
  ): Promise<Response> {
    const request = await samlChallenge(browser, app.url, 'Acme');
    const form = acme.answer(request, CONNECTION_SP_ENTITY_ID, { assertion: { nameId, attributes } });
    return deliverAnswer(browser, { method: 'POST', url: request.acsUrl, form }, app.url);
  }

  async function expectRefused(browser: TestBrowser, response: Response, connection: string, code: string) {
    expect(response.status, code).to.equal(403);
    expect(await response.text()).to.contain(code);
    expect(browser.sessionToken(app.url), 'no session').to.equal(undefined);
    expect(auditEvents(app.logs, 'signin.failed').at(-1)).to.include({ connection, code });
  }

  describe('OpenID Connect', () => {
    it('drops a provider-sent application:organization and application:connection: the organization is the connection’s', async () => {
      const browser = new TestBrowser();
      const landed = await signInAtGlobex(browser, {
        email_verified: true,
        'application:organization': 'acme',
        'application:connection': 'Acme',
      });
      expect(landed.status).to.equal(302);
      const claims = await sessionClaims(app.gatehouse, browser, app.url);
      expect(claims?.filter(([type]) => type === 'application:organization')).to.deep.equal([
        ['application:organization', 'globex'],
      ]);
      expect(claims?.filter(([type]) => type === 'application:connection')).to.deep.equal([
        ['application:connection', 'Globex'],
      ]);
      expect(await organizationRoute(browser, app.url, 'acme')).to.equal(403);
      expect(await organizationRoute(browser, app.url, 'globex')).to.equal(200);
    });

    it('refuses an address the provider says it did not verify (idp.email_unverified)', async () => {
      const browser = new TestBrowser();
      await expectRefused(
        browser,
        await signInAtGlobex(browser, { email_verified: false }),
        'Globex',
        'idp.email_unverified',
      );
    });

    it('refuses a sign-in without an address (idp.email_missing)', async () => {
      const browser = new TestBrowser();
      await expectRefused(browser, await signInAtGlobex(browser, { email: undefined }), 'Globex', 'idp.email_missing');
    });

    it("refuses an address outside the organization's domains (idp.domain_not_allowed)", async () => {
      const browser = new TestBrowser();
      const response = await signInAtGlobex(browser, { email: 'ceo@acme-rival.test', email_verified: true });
      await expectRefused(browser, response, 'Globex', 'idp.domain_not_allowed');
    });
  });

  describe('SAML2', () => {
    it('drops an application:organization attribute: the organization is the connection’s', async () => {
      const browser = new TestBrowser();
      const landed = await signInAtAcme(browser, 'ada@example.com', {
        [EMAIL_ATTRIBUTE]: ['ada@example.com'],
        'application:organization': ['globex'],
      });
      expect(landed.status).to.equal(302);
      const claims = await sessionClaims(app.gatehouse, browser, app.url);
      expect(claims?.filter(([type]) => type === 'application:organization')).to.deep.equal([
        ['application:organization', 'acme'],
      ]);
      expect(await organizationRoute(browser, app.url, 'globex')).to.equal(403);
    });

    it('refuses an address the identity provider says it did not verify (an email_verified attribute "false")', async () => {
      const browser = new TestBrowser();
      const response = await signInAtAcme(browser, 'ada@example.com', {
        [EMAIL_ATTRIBUTE]: ['ada@example.com'],
        email_verified: ['false'],
      });
      await expectRefused(browser, response, 'Acme', 'idp.email_unverified');
    });

    it("refuses when one of the e-mail attribute's values is outside the organization's domains", async () => {
      const browser = new TestBrowser();
      const response = await signInAtAcme(browser, 'ada@example.com', {
        [EMAIL_ATTRIBUTE]: ['ada@example.com', 'ceo@globex.test'],
      });
      await expectRefused(browser, response, 'Acme', 'idp.domain_not_allowed');
    });
  });
});
