import { expect } from 'chai';
import type { DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { CookieJar, driveOidcLogin } from '../../support/drive-oidc-login.js';
import { freePort, startIdentityProvider, startOidcApp, TestBrowser, type OidcApp } from '../../support/oidc-app.js';
import { adminClaims, signIn } from '../../support/sign-in.js';

const ADMIN = 'application.Role.Administrator';
const STEP_UP = 'ProjectTemplate__Authorization__StepUp__AdminPages__';

/** The text of a page, its tags dropped and its spaces folded. */
const textOf = (html: string) =>
  html
    .replace(/<wbr>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');

/**
 * What a person meets around a step-up, through the real app and the demo OpenID
 * provider: the start page says what a policy still needs instead of a bare ✕, and a
 * refused step-up says what was missing and offers to start it again for the same page.
 */
describe('the pages around a step-up', function () {
  this.timeout(30_000);
  let idp: DemoIdentityProvider;
  let app: OidcApp;

  before(async () => {
    const port = await freePort();
    idp = await startIdentityProvider([`http://127.0.0.1:${port}`]);
    app = await startOidcApp(idp.issuer, port, {
      [`${STEP_UP}Policy`]: ADMIN,
      [`${STEP_UP}MaxAuthenticationAgeSeconds`]: '600',
      [`${STEP_UP}AuthenticationMethods__0`]: 'mfa',
      ProjectTemplate__Authentication__Providers__OpenIdConnect__UsePushedAuthorization: 'false',
    });
  });
  after(async () => {
    await app.close();
    await idp.close();
  });
  afterEach(() => {
    idp.secondFactorOptional = false;
  });

  it('start page: an administrator without a recent second factor reads "needs a recent second factor", not a bare ✕', async () => {
    const browser = new TestBrowser();
    await browser.signIn(app.url, 'admin', '/');
    const page = await (await browser.get(`${app.url}/`, { accept: 'text/html' })).text();
    expect(page).to.match(
      /<li class="tag partial" title="satisfied after a sign-in within the last 10 minutes and a sign-in with multi-factor authentication \(mfa\)">application\.<wbr>Role\.<wbr>Administrator <span class="why">needs a recent second factor<\/span><\/li>/,
    );
    expect(page).to.contain('<code>/api/organizations/:organization/app-info</code>');
  });

  it('start page: a member of an organization reads "needs an organization in the route", with the endpoint of theirs to try', async () => {
    const member = await signIn(
      app.gatehouse,
      [
        ['application:subject', 'm-1'],
        ['application:name', 'Mia Member'],
        ['application:organization', 'acme'],
      ],
      { scheme: 'Acme', provider: 'Acme' },
    );
    const response = await fetch(`${app.url}/`, { headers: { cookie: member.cookie, accept: 'text/html' } });
    const page = await response.text();
    expect(textOf(page)).to.contain('application.Organization.Member needs an organization in the route');
    expect(page).to.contain('<a href="/api/organizations/acme/app-info">/api/organizations/acme/app-info</a>');
    const plain = await signIn(app.gatehouse, adminClaims);
    const admin = await (await fetch(`${app.url}/`, { headers: { cookie: plain.cookie, accept: 'text/html' } })).text();
    expect(admin).to.match(
      /<li class="tag off" title="not satisfied">application\.<wbr>Organization\.<wbr>Member<\/li>/,
    );
  });

  /** Signs the admin in, opens /Admin and follows the step-up to the provider's authorization URL. */
  async function stepUpStarted(browser: TestBrowser): Promise<string> {
    await browser.signIn(app.url, 'admin', '/');
    const admin = await browser.get(`${app.url}/Admin?tab=users`, { accept: 'text/html' });
    const challenge = await browser.get(new URL(admin.headers.get('location') ?? '', app.url).href);
    expect(challenge.status).to.equal(302);
    return challenge.headers.get('location') ?? '';
  }

  it('a step-up answered without the second factor: 403 saying what was missing, and "Try again" starts it again for the same page', async () => {
    const browser = new TestBrowser();
    const authorization = await stepUpStarted(browser);
    // A provider that lets the person skip the second factor it was asked for.
    idp.secondFactorOptional = true;
    const callback = await driveOidcLogin(authorization, 'admin', browser.jar);
    const refused = await browser.get(callback.href, { accept: 'text/html' });
    expect(refused.status).to.equal(403);
    const page = await refused.text();
    expect(textOf(page)).to.contain(
      "The identity provider's sign-in does not meet what this page needs: a sign-in with multi-factor authentication (mfa).",
    );
    const again = /<a class="button" href="([^"]+)">Try again<\/a>/.exec(page)?.[1]?.replace(/&amp;/g, '&');
    expect(again).to.equal(
      `/External/Challenge?provider=OpenIdConnect&stepUp=${encodeURIComponent(ADMIN)}&returnUrl=${encodeURIComponent('/Admin?tab=users')}`,
    );
    // Followed, it goes to the provider again, and with the code the page opens.
    idp.secondFactorOptional = false;
    const restarted = await browser.get(`${app.url}${again}`);
    expect(restarted.status).to.equal(302);
    expect(new URL(restarted.headers.get('location') ?? '').searchParams.get('max_age')).to.equal('600');
    const answered = await driveOidcLogin(restarted.headers.get('location') ?? '', 'admin', browser.jar, {
      oneTimeCode: '135790',
    });
    const back = await browser.get(answered.href);
    expect(back.headers.get('location')).to.equal('/Admin?tab=users');
  });

  it('another person at the step-up: 403 (a refusal of the person, not a gateway failure), the reason, and "Try again"', async () => {
    const browser = new TestBrowser();
    const authorization = await stepUpStarted(browser);
    // Uma signs in at the prompt, in a provider session of her own.
    const callback = await driveOidcLogin(authorization, 'user', new CookieJar(), { oneTimeCode: '135790' });
    const refused = await browser.get(callback.href, { accept: 'text/html' });
    expect(refused.status).to.equal(403);
    const page = textOf(await refused.text());
    expect(page).to.contain('Someone else signed in at the identity provider than the person signed in here');
    expect(page).to.contain('idp.subject_changed').and.contain('Try again');
  });

  it('the demo provider says why it asks again and requires the one-time code', async () => {
    const browser = new TestBrowser();
    const authorization = await stepUpStarted(browser);
    let response = await browser.jar.fetch(authorization);
    while (response.status >= 300 && response.status < 400) {
      response = await browser.jar.fetch(new URL(response.headers.get('location') ?? '', authorization).href);
    }
    const page = await response.text();
    expect(textOf(page))
      .to.contain('Confirm it is you')
      .and.contain('the page you opened needs a sign-in from the last 10 minutes with a second factor')
      .and.contain('Confirm with a one-time code (required)');
    expect(page).not.to.contain('(optional)');
  });
});
