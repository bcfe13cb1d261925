import { expect } from 'chai';
import { readRedirectedAuthnRequest } from '../../../scripts/saml/authn-request.js';
import { SamlBrowser, SP_ENTITY_ID, startSamlApp, type SamlApp } from '../../support/saml-app.js';
import { SamlTestIdentityProvider, type AnswerOptions } from '../../support/saml-identity-provider.js';

const ADMIN = 'application.Role.Administrator';
const STEP_UP = 'ProjectTemplate__Authorization__StepUp';
const PASSWORD = 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport';
const MFA = 'http://schemas.microsoft.com/claims/multipleauthn';
const SMARTCARD = 'urn:oasis:names:tc:SAML:2.0:ac:classes:SmartcardPKI';

/**
 * Step-up with SAML against responses signed by the test identity provider (xml-crypto,
 * no samlify on that side). /Admin needs a sign-in within 5 minutes with mfa, and the
 * class of ADFS's multi-factor sign-in or a PKI smart card (RequestedAuthnContext).
 */
describe('step-up with SAML2 (responses signed with xml-crypto)', function () {
  this.timeout(30_000);
  let idp: SamlTestIdentityProvider;
  let app: SamlApp;

  before(async () => {
    idp = await SamlTestIdentityProvider.start();
    app = await startSamlApp(idp, {
      [`${STEP_UP}__${ADMIN}__MaxAuthenticationAgeSeconds`]: '300',
      [`${STEP_UP}__${ADMIN}__AuthenticationMethods__0`]: 'mfa',
      [`${STEP_UP}__${ADMIN}__AuthenticationContextClasses__0`]: MFA,
      [`${STEP_UP}__${ADMIN}__AuthenticationContextClasses__1`]: SMARTCARD,
    });
  });
  after(async () => {
    await app.close();
    await idp.close();
  });

  /** The admin signed in with a password, `secondsAgo` as the AuthnInstant says. */
  async function signedInAdmin(secondsAgo = 0): Promise<SamlBrowser> {
    const browser = new SamlBrowser();
    const answer = await browser.signIn(app, idp, { assertion: { authnInstant: Date.now() - secondsAgo * 1000 } });
    expect(answer.status).to.equal(302);
    return browser;
  }

  /** /Admin in the browser, then the challenge it is sent to: the step-up AuthnRequest as the identity provider receives it. */
  async function stepUpRequest(browser: SamlBrowser) {
    const redirected = await browser.get(`${app.url}/Admin`, { accept: 'text/html' });
    expect(redirected.status).to.equal(302);
    const challenge = await browser.get(new URL(redirected.headers.get('location') ?? '', app.url).href);
    expect(challenge.status).to.equal(302);
    return readRedirectedAuthnRequest(challenge.headers.get('location') ?? '');
  }

  const deliver = (browser: SamlBrowser, request: Awaited<ReturnType<typeof stepUpRequest>>, options: AnswerOptions) =>
    browser.post(app.acsUrl, idp.answer(request, SP_ENTITY_ID, options));

  it('asks with ForceAuthn and RequestedAuthnContext (exact, the configured classes) and lets a multi-factor sign-in in', async () => {
    const browser = await signedInAdmin();
    const before = browser.sessionToken(app.url);
    const request = await stepUpRequest(browser);
    expect(request.xml).to.contain(' ForceAuthn="true"');
    expect(request.xml).to.contain(
      `<samlp:RequestedAuthnContext Comparison="exact"><saml:AuthnContextClassRef>${MFA}</saml:AuthnContextClassRef><saml:AuthnContextClassRef>${SMARTCARD}</saml:AuthnContextClassRef></samlp:RequestedAuthnContext>`,
    );
    const answer = await deliver(browser, request, { assertion: { authnContextClassRef: MFA } });
    expect(answer.status).to.equal(302);
    expect(answer.headers.get('location')).to.equal('/Admin');
    expect(browser.sessionToken(app.url)).not.to.equal(before);
    expect((await browser.get(`${app.url}/Admin`, { accept: 'text/html' })).status).to.equal(200);
  });

  const refusals: Array<[string, AnswerOptions, string]> = [
    [
      'a password sign-in (class and amr not met)',
      { assertion: { authnContextClassRef: PASSWORD } },
      'idp.step_up_not_met',
    ],
    [
      'an AuthnInstant from before the challenge (ForceAuthn ignored)',
      { assertion: { authnContextClassRef: MFA, authnInstant: Date.now() - 3600_000 } },
      'idp.step_up_stale',
    ],
    ['another person', { user: 'user', assertion: { authnContextClassRef: MFA } }, 'idp.subject_changed'],
  ];
  for (const [label, options, code] of refusals) {
    it(`refuses ${label} (${code}) and leaves the session as it was`, async () => {
      const browser = await signedInAdmin();
      const token = browser.sessionToken(app.url);
      const request = await stepUpRequest(browser);
      const answer = await deliver(browser, request, options);
      expect(answer.status).to.equal(403);
      expect(await answer.text()).to.contain(`<code>${code}</code>`);
      expect(browser.sessionToken(app.url)).to.equal(token);
      // Still the password sign-in: the page sends it to step up again.
      expect((await browser.get(`${app.url}/Admin`, { accept: 'text/html' })).status).to.equal(302);
    });
  }

  it('refuses an answer to the earlier sign-in request (InResponseTo binds the step-up request)', async () => {
    const browser = new SamlBrowser();
    const first = await browser.challenge(app);
    await browser.post(app.acsUrl, idp.answer(first, SP_ENTITY_ID));
    const request = await stepUpRequest(browser);
    // A multi-factor answer, but to the first request: the step-up's RelayState, the old request's ID.
    const answer = await deliver(
      browser,
      { ...first, relayState: request.relayState },
      {
        assertion: { authnContextClassRef: MFA },
      },
    );
    expect(answer.status).to.equal(400);
    expect(await answer.text()).to.contain('<code>idp.in_response_to_mismatch</code>');
    expect((await browser.get(`${app.url}/Admin`, { accept: 'text/html' })).status).to.equal(302);
  });
});
