import { expect } from 'chai';
import type { DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { DEMO_ACR } from '../../../scripts/demo-identity-provider-pages.js';
import { CookieJar, driveOidcLogin } from '../../support/drive-oidc-login.js';
import {
  freePort,
  startIdentityProvider,
  startOidcApp,
  storedSession,
  TestBrowser,
  type OidcApp,
} from '../../support/oidc-app.js';

const ADMIN = 'application.Role.Administrator';
const MANAGE = 'application.Permission.ManageApplication';
const STEP_UP = 'ProjectTemplate__Authorization__StepUp';

/**
 * Step-up against the real oidc-provider (the demo provider: a password, and optionally a
 * one-time code, which makes amr ["pwd","otp","mfa"] and acr its MFA class). /Admin needs
 * a sign-in within 5 minutes with mfa; /api/app-info/manage the MFA acr.
 */
describe('step-up with OpenID Connect (real oidc-provider)', function () {
  this.timeout(30_000);
  let idp: DemoIdentityProvider;
  let app: OidcApp;

  before(async () => {
    const port = await freePort();
    idp = await startIdentityProvider([`http://127.0.0.1:${port}`]);
    app = await startOidcApp(idp.issuer, port, {
      [`${STEP_UP}__${ADMIN}__MaxAuthenticationAgeSeconds`]: '300',
      [`${STEP_UP}__${ADMIN}__AuthenticationMethods__0`]: 'mfa',
      [`${STEP_UP}__${MANAGE}__AuthenticationContextClasses__0`]: DEMO_ACR.mfa,
      // The authorization request's parameters in its URL, where this test reads them.
      ProjectTemplate__Authentication__Providers__OpenIdConnect__UsePushedAuthorization: 'false',
    });
  });
  after(async () => {
    await app.close();
    await idp.close();
  });
  afterEach(() => {
    idp.authenticatedSecondsAgo = 0;
    idp.secondFactorOptional = false;
  });

  /** The admin, signed in with a password only, `secondsAgo` as far as the provider says. */
  async function signedInAdmin(secondsAgo = 0): Promise<TestBrowser> {
    const browser = new TestBrowser();
    idp.authenticatedSecondsAgo = secondsAgo;
    const response = await browser.signIn(app.url, 'admin', '/');
    expect(response.status).to.equal(302);
    idp.authenticatedSecondsAgo = 0;
    return browser;
  }

  /** Follows a step-up redirect to the provider, signs `login` in there, and returns the callback's answer. */
  async function stepUp(
    browser: TestBrowser,
    redirect: Response,
    login: 'admin' | 'user',
    oneTimeCode?: string,
  ): Promise<Response> {
    const challenge = await browser.get(new URL(redirect.headers.get('location') ?? '', app.url).href);
    expect(challenge.status, await challenge.clone().text()).to.equal(302);
    const authorization = new URL(challenge.headers.get('location') ?? '');
    // Another person signs in at the provider in a session of their own there.
    const providerJar = login === 'admin' ? browser.jar : new CookieJar();
    const callback = await driveOidcLogin(authorization.href, login, providerJar, {
      ...(oneTimeCode === undefined ? {} : { oneTimeCode }),
    });
    return browser.get(callback.href);
  }

  /** The challenge an API's 401 names, started in the browser with `returnUrl`: the provider's authorization URL. */
  async function apiChallenge(browser: TestBrowser, path: string): Promise<URL> {
    const refused = await browser.get(`${app.url}${path}`, { accept: 'application/json' });
    expect(refused.status).to.equal(401);
    const { challenge } = (await refused.json()) as { challenge: string };
    const started = await browser.get(`${app.url}${challenge}&returnUrl=${encodeURIComponent(path)}`);
    expect(started.status).to.equal(302);
    return new URL(started.headers.get('location') ?? '');
  }

  const page = (browser: TestBrowser, path: string) => browser.get(`${app.url}${path}`, { accept: 'text/html' });

  it('sends a password-only admin to the same provider, asking max_age and a fresh sign-in, back to the page', async () => {
    const browser = await signedInAdmin();
    const denied = await page(browser, '/Admin?tab=users');
    expect(denied.status).to.equal(302);
    const location = new URL(denied.headers.get('location') ?? '', app.url);
    expect(location.pathname).to.equal('/External/Challenge');
    expect(Object.fromEntries(location.searchParams)).to.deep.equal({
      provider: 'OpenIdConnect',
      stepUp: ADMIN,
      returnUrl: '/Admin?tab=users',
    });
    const challenge = await browser.get(location.href);
    const authorization = new URL(challenge.headers.get('location') ?? '');
    expect(authorization.searchParams.get('max_age')).to.equal('300');
    expect(authorization.searchParams.get('prompt')).to.equal('login');
    expect(authorization.searchParams.has('acr_values')).to.equal(false);
  });

  it('lets the admin in after a second factor: a new session id, the new amr, audited as a step-up', async () => {
    const browser = await signedInAdmin();
    const before = browser.sessionToken(app.url);
    const answer = await stepUp(browser, await page(browser, '/Admin'), 'admin', '123456');
    expect(answer.status).to.equal(302);
    expect(answer.headers.get('location')).to.equal('/Admin');
    expect(browser.sessionToken(app.url)).not.to.equal(before);
    expect((await page(browser, '/Admin')).status).to.equal(200);
    const events = app.logs.filter((line) => line.includes('"signin.succeeded"') && line.includes('"step_up"'));
    expect(events).to.have.length.greaterThan(0);
  });

  it('refuses a step-up without the second factor (amr not met), the session as it was', async () => {
    const browser = await signedInAdmin();
    // A provider that lets the person skip the second factor it was asked for.
    idp.secondFactorOptional = true;
    const before = await storedSession(app, browser);
    const token = browser.sessionToken(app.url);
    const answer = await stepUp(browser, await page(browser, '/Admin'), 'admin');
    expect(answer.status).to.equal(403);
    expect(await answer.text()).to.contain('multi-factor authentication (mfa)');
    expect(browser.sessionToken(app.url)).to.equal(token);
    expect(await storedSession(app, browser)).to.deep.equal({
      ...before,
      lastSeenAt: (await storedSession(app, browser))?.lastSeenAt,
    });
  });

  it('refuses another person signing in at the step-up prompt (idp.subject_changed), the session as it was', async () => {
    const browser = await signedInAdmin();
    const token = browser.sessionToken(app.url);
    const signInBefore = (await storedSession(app, browser))?.signIn;
    const answer = await stepUp(browser, await page(browser, '/Admin'), 'user', '123456');
    expect(answer.status).to.equal(403);
    expect(await answer.text()).to.contain('Someone else signed in');
    expect(browser.sessionToken(app.url)).to.equal(token);
    expect((await storedSession(app, browser))?.signIn).to.equal(signInBefore);
    expect(app.logs.some((line) => line.includes('"idp.subject_changed"'))).to.equal(true);
  });

  it('refuses an answer with an auth_time from before the challenge (a provider ignoring max_age): no loop', async () => {
    const browser = await signedInAdmin(3600);
    const redirect = await page(browser, '/Admin');
    idp.authenticatedSecondsAgo = 3600;
    const answer = await stepUp(browser, redirect, 'admin', '123456');
    expect(answer.status).to.equal(403);
    expect(app.logs.some((line) => line.includes('"idp.step_up_stale"'))).to.equal(true);
    // The page asks again (the session is unchanged), but never by itself: each round is the user's.
    expect((await page(browser, '/Admin')).status).to.equal(302);
  });

  it('asks for the acr with acr_values and accepts the provider meeting it', async () => {
    const browser = await signedInAdmin();
    const authorization = await apiChallenge(browser, '/api/app-info/manage');
    expect(authorization.searchParams.get('acr_values')).to.equal(DEMO_ACR.mfa);
    expect(authorization.searchParams.has('max_age')).to.equal(false);
    // acr_values alone lets the provider keep its session; the demo provider asks for the code when acr_values asks for MFA.
    const callback = await driveOidcLogin(authorization.href, 'admin', browser.jar, { oneTimeCode: '654321' });
    expect((await browser.get(callback.href)).headers.get('location')).to.equal('/api/app-info/manage');
    expect((await browser.get(`${app.url}/api/app-info/manage`, { accept: 'application/json' })).status).to.equal(200);
  });

  it('refuses a lower acr than asked (the provider reusing its password session)', async () => {
    const browser = await signedInAdmin();
    const authorization = await apiChallenge(browser, '/api/app-info/manage');
    // A provider that does not honor acr_values: its password session is reused as it is.
    authorization.searchParams.delete('acr_values');
    const callback = await driveOidcLogin(authorization.href, 'admin', browser.jar);
    const answer = await browser.get(callback.href);
    expect(answer.status).to.equal(403);
    expect(app.logs.some((line) => line.includes('"idp.step_up_not_met"'))).to.equal(true);
  });

  it('answers an API request with 401 and the RFC 9470 challenge, never a redirect', async () => {
    const browser = await signedInAdmin();
    const answer = await browser.get(`${app.url}/api/app-info/admin`, { accept: 'application/json' });
    expect(answer.status).to.equal(401);
    expect(answer.headers.get('www-authenticate')).to.equal(
      'Bearer error="insufficient_user_authentication", error_description="This page needs a sign-in with multi-factor authentication (mfa).", max_age=300',
    );
    expect(answer.headers.get('content-type')).to.contain('application/problem+json');
    expect(await answer.json()).to.deep.equal({
      type: 'about:blank',
      title: 'A stronger or more recent sign-in is required',
      status: 401,
      detail: 'This page needs a sign-in with multi-factor authentication (mfa).',
      code: 'auth.step_up_required',
      max_age: 300,
      amr_values: ['mfa'],
      challenge: `/External/Challenge?provider=OpenIdConnect&stepUp=${encodeURIComponent(ADMIN)}`,
    });
    const acr = await browser.get(`${app.url}/api/app-info/manage`, { accept: 'application/json' });
    expect(acr.headers.get('www-authenticate')).to.equal(
      `Bearer error="insufficient_user_authentication", error_description="This page needs a sign-in at the assurance level ${DEMO_ACR.mfa}.", acr_values="${DEMO_ACR.mfa}"`,
    );
  });
});
