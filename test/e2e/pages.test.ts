/**
 * Every page a person meets, in a real browser at a phone's, a tablet's and a
 * laptop's width (screenshots in test-artifacts/e2e/<page>-<width>.png), with no console
 * error or CSP violation on any of them; the role-protected page for a user with and
 * without the role; the sign-out message after both kinds of logout; the favicon. The
 * demo's own servers too (the OpenID provider's sign-in page, the SAML identity provider's
 * sign-in, portal, logout and refusal pages, a vendor-shaped consent page), the calm page
 * after a cancel at the provider, and the 429 page of the per-client sign-in limit.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DEMO_USERS } from '../../scripts/demo-users.js';
import { adminClaims, signIn } from '../support/sign-in.js';
import { startGatehouse, type RunningGatehouse } from '../support/start-gatehouse.js';
import { launchChromium } from './support/chromium.js';
import { confirmSignOutAtDemoProvider, fillDemoLogin, signInAtDemoProvider } from './support/demo-provider-pages.js';
import { startDemoStack, type DemoStack } from './support/demo-stack.js';
import { startSocialStack, type SocialStack } from './support/social-stack.js';
import { redirectUrl } from '../../scripts/saml/logout-messages.js';
import { PageWatch } from './support/page-watch.js';
import { expectFitsEveryWidth } from './support/page-widths.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/e2e/', import.meta.url));
const SIGNED_OUT = 'You have been signed out.';

describe('Pages at phone, tablet and desktop widths (chromium)', function () {
  let stack: DemoStack;
  /** A Gatehouse with no provider registered: the login page that says how to enable one. */
  let bare: RunningGatehouse;
  /** The vendor-shaped servers and a Gatehouse against them: their consent pages. */
  let social: SocialStack;
  /**
   * In development (where a server error shows its stack), one social provider that is never
   * reached, and a limit of one sign-in started per client: the second answers 429.
   */
  let limited: RunningGatehouse;
  let browser: Browser;
  const open: BrowserContext[] = [];

  before(async function () {
    mkdirSync(ARTIFACTS, { recursive: true });
    [stack, bare, social, limited, browser] = await Promise.all([
      startDemoStack(),
      startGatehouse({ ProjectTemplate__Logging__Level: 'warn' }),
      startSocialStack(),
      startGatehouse({
        NODE_ENV: 'development',
        ProjectTemplate__Logging__Level: 'warn',
        ProjectTemplate__Hosting__PublicOrigin: 'http://127.0.0.1:1',
        ProjectTemplate__Session__PendingSignInsPerClient: '1',
        ProjectTemplate__Authentication__Providers__Social3__Enabled: 'true',
        ProjectTemplate__Authentication__Providers__Social3__ClientId: 'never-used',
        ProjectTemplate__Authentication__Providers__Social3__ClientSecret: 'never-used-either',
      }),
      launchChromium(),
    ]);
  });

  after(async function () {
    await Promise.all(open.map((context) => context.close()));
    await browser?.close();
    await Promise.all([stack?.close(), bare?.close(), social?.close(), limited?.close()]);
  });

  async function freshBrowser(
    allowedHosts: readonly string[] = ['127.0.0.1'],
  ): Promise<{ context: BrowserContext; page: Page; watch: PageWatch }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    open.push(context);
    const page = await context.newPage();
    return { context, page, watch: await PageWatch.attach(context, page, allowedHosts) };
  }

  /** Signs in through the demo provider's pages, from the closed start page. */
  async function signInAs(page: Page, login: 'admin' | 'user'): Promise<void> {
    await page.goto(`${stack.appOrigin}/`);
    await page.getByRole('link', { name: `Sign in with ${stack.displayName}` }).click();
    await signInAtDemoProvider(page, login);
    await page.waitForURL(`${stack.appOrigin}/`);
    await page.getByRole('heading', { name: `Welcome, ${DEMO_USERS[login].name}` }).waitFor();
  }

  /**
   * Nothing the browser complained about on `origin`'s pages, but the error statuses the
   * test asked for: Chromium logs every 4xx it navigates to as a failed resource load.
   */
  function expectNoProblems(watch: PageWatch, origin: string, expected: Array<{ url: string; status: number }> = []) {
    const unexpected = watch
      .problemsOn(origin)
      .filter(
        (problem) =>
          !expected.some(
            ({ url, status }) =>
              problem.url === url &&
              problem.text.startsWith(`Failed to load resource: the server responded with a status of ${status} `),
          ),
      );
    expect(unexpected, `console errors or CSP violations on ${origin}`).to.deep.equal([]);
    const fromOrigin = watch.offHostRequests.filter((request) => request.fromPage.startsWith(`${origin}/`));
    expect(fromOrigin, `requests from ${origin} pages that leave loopback`).to.deep.equal([]);
  }

  it('the login page with a provider, and the error page, to anonymous visitors', async function () {
    const { page, watch } = await freshBrowser();
    await page.goto(`${stack.appOrigin}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('status').count(), 'no sign-out message before any sign-out').to.equal(0);
    await expectFitsEveryWidth(page, 'login', ARTIFACTS);

    const missing = await page.goto(`${stack.appOrigin}/no/such/page`);
    expect(missing?.status()).to.equal(404);
    await page.getByRole('heading', { name: 'Not Found' }).waitFor();
    await expectFitsEveryWidth(page, 'error', ARTIFACTS);

    expectNoProblems(watch, stack.appOrigin, [{ url: `${stack.appOrigin}/no/such/page`, status: 404 }]);
  });

  it('the login page without providers, and a local sign-out that says so', async function () {
    const { context, page, watch } = await freshBrowser();
    await page.goto(`${bare.url}/Account/Login`);
    await page.getByText('No sign-in provider is configured yet, so nobody can sign in.').waitFor();
    await page.getByText('npm run demo').first().waitFor();
    await expectFitsEveryWidth(page, 'login-no-providers', ARTIFACTS);
    // Each key on a line of its own, wrapped inside the box: nothing cut, nothing to scroll sideways.
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      const box = page.locator('pre.code.wrap');
      const overflow = Number(
        await page.evaluate(
          "(() => { const pre = document.querySelector('pre.code.wrap'); return pre.scrollWidth - pre.clientWidth; })()",
        ),
      );
      expect(overflow, `the keys' box scrolls sideways at ${width} px`).to.equal(0);
      expect(await box.locator('.line').count()).to.equal(4);
    }

    // Without a provider nobody can sign in through a page; a session written to the store
    // stands in for one. Its logout has no provider step: straight to the login page.
    const { token } = await signIn(bare.gatehouse, adminClaims);
    await context.addCookies([{ name: 'gatehouse.sid', value: token, url: bare.url, httpOnly: true, sameSite: 'Lax' }]);
    await page.goto(`${bare.url}/`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${bare.url}/Account/Login`);
    expect(await page.getByRole('status').textContent()).to.equal(SIGNED_OUT);
    expectNoProblems(watch, bare.url);
  });

  it('an administrator: the starter page names the provider and links to /Admin; signing out at the provider ends on the login page, which says so', async function () {
    const { page, watch } = await freshBrowser();
    await signInAs(page, 'admin');
    expect(await page.locator('.lead .provider-name').textContent()).to.equal(stack.displayName);
    await expectFitsEveryWidth(page, 'starter-admin', ARTIFACTS);

    // Step-up (docs/step-up.md): /Admin wants a second factor from the last 10 minutes, so
    // the admin is sent back to the provider, which asks again; the one-time code gets in.
    await page.getByRole('link', { name: 'Open the administration page' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${stack.issuer}/`));
    await page.getByRole('textbox', { name: /one-time code/ }).waitFor();
    await fillDemoLogin(page, 'admin', '246810');
    await page.waitForURL(`${stack.appOrigin}/Admin`);
    await page.getByRole('heading', { name: 'Administration' }).waitFor();
    expect(await page.locator('.provider-name').first().textContent()).to.equal(stack.displayName);
    await expectFitsEveryWidth(page, 'admin', ARTIFACTS);

    // RP-initiated logout: our logout, the provider's confirmation, its redirect to `/`,
    // the challenge to the login page, where the message is shown once.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await confirmSignOutAtDemoProvider(page);
    await page.waitForURL(`${stack.appOrigin}/Account/Login?returnUrl=%2F`);
    expect(await page.getByRole('status').textContent()).to.equal(SIGNED_OUT);
    await expectFitsEveryWidth(page, 'login-signed-out', ARTIFACTS);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('status').count(), 'the message is shown once').to.equal(0);

    expectNoProblems(watch, stack.appOrigin);
  });

  it('a user without the role: no link to /Admin, and following one lands on the styled access-denied page (403)', async function () {
    const { page, watch } = await freshBrowser();
    await signInAs(page, 'user');
    expect(await page.getByRole('link', { name: 'Open the administration page' }).count()).to.equal(0);
    await expectFitsEveryWidth(page, 'starter-user', ARTIFACTS);

    const hops: string[] = [];
    page.on('response', (response) => {
      if (response.request().isNavigationRequest()) hops.push(`${response.status()} ${response.url()}`);
    });
    await page.getByRole('link', { name: '/Admin', exact: true }).click();
    await page.getByRole('heading', { name: 'Access denied' }).waitFor();
    expect(hops).to.deep.equal([`302 ${stack.appOrigin}/Admin`, `403 ${stack.appOrigin}/Account/AccessDenied`]);
    await expectFitsEveryWidth(page, 'access-denied', ARTIFACTS);

    expectNoProblems(watch, stack.appOrigin, [{ url: `${stack.appOrigin}/Account/AccessDenied`, status: 403 }]);
  });

  it('the sessions page: two sessions listed, one signed out from the other browser, then everywhere', async function () {
    const first = await freshBrowser();
    const second = await freshBrowser();
    await signInAs(first.page, 'admin');
    await signInAs(second.page, 'admin');
    await first.page.getByRole('link', { name: 'Your sessions' }).click();
    await first.page.waitForURL(`${stack.appOrigin}/Account/Sessions`);
    await first.page.getByRole('heading', { name: 'Your sessions' }).waitFor();
    expect(await first.page.locator('table.sessions tbody tr').count()).to.be.at.least(2);
    expect(await first.page.locator('tbody tr', { hasText: 'this session' }).count()).to.equal(1);
    await expectFitsEveryWidth(first.page, 'sessions', ARTIFACTS);

    // Sign the other browser out from this one: it is anonymous at its next request.
    const others = await first.page.locator('tbody tr', { hasNotText: 'this session' }).count();
    await first.page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await first.page.waitForURL(`${stack.appOrigin}/Account/Sessions?ended=${others}`);
    expect(await first.page.getByRole('status').textContent()).to.contain('signed out');
    await second.page.goto(`${stack.appOrigin}/`);
    await second.page.getByRole('heading', { name: 'Sign in' }).waitFor();

    // Everywhere includes this browser, which leaves through the provider's end-session as a
    // sign-out does: otherwise its provider session would sign it straight back in.
    await first.page.getByRole('button', { name: 'Sign out everywhere', exact: true }).click();
    await confirmSignOutAtDemoProvider(first.page);
    await first.page.waitForURL(`${stack.appOrigin}/Account/Login?returnUrl=%2F`);
    expect(await first.page.getByRole('status').textContent()).to.equal(SIGNED_OUT);
    expectNoProblems(first.watch, stack.appOrigin);
  });

  it('a cancel at the provider: its sign-in page, then the calm sign-in-cancelled page with the way back', async function () {
    const { context, page, watch } = await freshBrowser();
    await page.goto(`${stack.appOrigin}/`);
    await page.getByRole('link', { name: `Sign in with ${stack.displayName}` }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expectFitsEveryWidth(page, 'demo-idp-sign-in', ARTIFACTS);
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Sign-in cancelled' }).waitFor();
    const cancelled = page.url();
    expect(await page.locator('details, .status-code').count(), 'no stack toggle, no status number').to.equal(0);
    expect((await context.cookies(stack.appOrigin)).some((cookie) => cookie.name === 'gatehouse.sid')).to.equal(false);
    await expectFitsEveryWidth(page, 'sign-in-cancelled', ARTIFACTS);
    await page.getByRole('link', { name: 'Back to sign-in' }).click();
    await page.getByRole('link', { name: `Sign in with ${stack.displayName}` }).waitFor();
    expectNoProblems(watch, stack.appOrigin, [{ url: cancelled, status: 400 }]);
  });

  it('the 429 page of the per-client sign-in limit: the wait in minutes, no stack toggle even in development', async function () {
    const { context, page, watch } = await freshBrowser();
    const challenge = `${limited.url}/External/Challenge?provider=Social3&returnUrl=%2F`;
    // The one sign-in this client may start (its redirect goes to a vendor nobody runs here).
    expect((await context.request.get(challenge, { maxRedirects: 0 })).status()).to.equal(302);
    const refused = await page.goto(challenge);
    expect(refused?.status()).to.equal(429);
    const minutes = Math.ceil(Number(refused?.headers()['retry-after']) / 60);
    await page.getByRole('heading', { name: 'Too many requests' }).waitFor();
    await page
      .getByText(`You can try again in ${minutes === 1 ? 'about a minute' : `about ${minutes} minutes`}.`)
      .waitFor();
    expect(await page.locator('details').count(), 'no stack toggle for an expected refusal').to.equal(0);
    await expectFitsEveryWidth(page, 'too-many-sign-ins', ARTIFACTS);
    expectNoProblems(watch, limited.url, [{ url: challenge, status: 429 }]);
  });

  it("a vendor-shaped server's consent page fits a phone and says that social sign-ins carry no roles", async function () {
    const { page } = await freshBrowser();
    await page.goto(`${social.appOrigin}/`);
    await page.getByRole('link', { name: 'Sign in with Microsoft' }).click();
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    expect(await page.locator('meta[name="viewport"]').count()).to.equal(1);
    expect(await page.locator('.note').textContent()).to.contain('A social account carries no roles');
    await expectFitsEveryWidth(page, 'vendor-consent', ARTIFACTS);
  });

  it("the demo SAML identity provider's pages fit a phone: sign-in, portal, logout, signed out, and its refusal", async function () {
    const { page, watch } = await freshBrowser(['127.0.0.1', '127.0.0.2']);
    await page.goto(`${stack.appOrigin}/`);
    await page.getByRole('link', { name: `Sign in with ${stack.saml.displayName}` }).click();
    await page.waitForURL((url) => url.href.startsWith(`${stack.saml.origin}/sso`));
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expectFitsEveryWidth(page, 'saml-idp-sign-in', ARTIFACTS);
    await page.locator('input[name="login"]').fill('admin');
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${stack.appOrigin}/`);

    await page.goto(`${stack.saml.origin}/`);
    await page.getByRole('heading', { name: 'Portal' }).waitFor();
    await expectFitsEveryWidth(page, 'saml-idp-portal', ARTIFACTS);

    await page.goto(`${stack.saml.origin}/logout`);
    await page.getByRole('button', { name: 'Sign out everywhere' }).waitFor();
    await expectFitsEveryWidth(page, 'saml-idp-logout', ARTIFACTS);
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('heading', { name: 'Signed out' }).waitFor();
    await expectFitsEveryWidth(page, 'saml-idp-signed-out', ARTIFACTS);

    const stranger = `<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_e2e" Version="2.0" IssueInstant="${new Date().toISOString()}" AssertionConsumerServiceURL="https://sp.elsewhere.example/acs"><saml:Issuer>https://sp.elsewhere.example/saml</saml:Issuer></samlp:AuthnRequest>`;
    const refused = await page.goto(redirectUrl(`${stack.saml.origin}/sso`, 'SAMLRequest', stranger));
    expect(refused?.status()).to.equal(400);
    await page.getByRole('heading', { name: 'Unknown service provider' }).waitFor();
    await expectFitsEveryWidth(page, 'saml-idp-unknown-service-provider', ARTIFACTS);
    expectNoProblems(watch, stack.appOrigin);
  });

  it('every icon a page names answers, and so does /favicon.ico, which browsers ask for on their own', async function () {
    const { page, watch } = await freshBrowser();
    await page.goto(`${stack.appOrigin}/Account/Login`);
    const icons = (
      await page.locator('link[rel="icon"]').evaluateAll((links) => links.map((link) => link.getAttribute('href')))
    ).map((href) => new URL(href ?? '', stack.appOrigin).href);
    expect(icons).to.include(`${stack.appOrigin}/favicon.ico`);
    for (const icon of icons) {
      const response = await page.request.get(icon);
      expect(response.status(), icon).to.equal(200);
      expect(response.headers()['content-type'], icon).to.match(/^image\//);
    }
    expectNoProblems(watch, stack.appOrigin);
  });
});
