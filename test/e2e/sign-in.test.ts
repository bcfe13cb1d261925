/**
 * Issue 4: the whole sign-in journey in a real browser. Debian's chromium, driven by
 * playwright-core, against the demo identity provider (oidc-provider) and an in-process
 * Gatehouse, each on a free loopback port. Screenshots land in test-artifacts/e2e/.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser, BrowserContext, Cookie, Page } from 'playwright-core';
import { DEMO_USERS } from '../../scripts/demo-users.js';
import { packageName } from '../support/package-name.js';
import { launchChromium } from './support/chromium.js';
import { claimRows } from './support/claim-rows.js';
import { confirmSignOutAtDemoProvider, signInAtDemoProvider } from './support/demo-provider-pages.js';
import { startDemoStack, type DemoStack } from './support/demo-stack.js';
import { PageWatch } from './support/page-watch.js';
import { freshBrowser as openFreshBrowser, isErrorLine } from './support/fresh-browser.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/e2e/', import.meta.url));
const SESSION_COOKIE = 'gatehouse.sid';
const LOGIN_PAGE = '/Account/Login?returnUrl=%2F';

describe('Sign-in in a real browser (chromium)', function () {
  let stack: DemoStack;
  let browser: Browser;

  before(async function () {
    mkdirSync(ARTIFACTS, { recursive: true });
    stack = await startDemoStack();
    browser = await launchChromium();
  });

  after(async function () {
    await browser?.close();
    await stack?.close();
  });

  const freshBrowser = () => openFreshBrowser(browser);

  async function sessionCookie(context: BrowserContext): Promise<Cookie | undefined> {
    return (await context.cookies(stack.appOrigin)).find((cookie) => cookie.name === SESSION_COOKIE);
  }

  /** Gatehouse's stylesheet is applied: its font stack and page background, not the browser's defaults. */
  async function expectStyled(page: Page): Promise<void> {
    // Runs in the page; the element is reached through the locator. (The DOM types come in
    // through the XML libraries' declarations, where `defaultView` may be null.)
    const style = await page.locator('body').evaluate((body) => ({
      font: body.ownerDocument.defaultView?.getComputedStyle(body).fontFamily ?? '',
      background:
        body.ownerDocument.defaultView?.getComputedStyle(body.ownerDocument.documentElement).backgroundColor ?? '',
    }));
    expect(style.font, `body font on ${page.url()}`).to.match(/^system-ui\b/);
    expect(style.background, `page background on ${page.url()}`).to.equal('rgb(246, 247, 251)');
  }

  /**
   * No console error, CSP violation or off-host request on a Gatehouse page. Chromium logs
   * every error status it navigates to, so the 403s the journey asks for are expected.
   */
  function expectNoProblemsOnGatehouse(watch: PageWatch, expectedForbidden: string[]): void {
    const unexpected = watch
      .problemsOn(stack.appOrigin)
      .filter(
        (problem) =>
          !(
            expectedForbidden.includes(problem.url) &&
            problem.text === 'Failed to load resource: the server responded with a status of 403 (Forbidden)'
          ),
      );
    expect(unexpected, 'console errors on Gatehouse pages').to.deep.equal([]);
    const offHostFromGatehouse = watch.offHostRequests.filter((request) =>
      request.fromPage.startsWith(`${stack.appOrigin}/`),
    );
    expect(offHostFromGatehouse, 'requests from Gatehouse pages that leave loopback').to.deep.equal([]);
  }

  for (const login of ['admin', 'user'] as const) {
    const user = DEMO_USERS[login];
    const isAdmin = login === 'admin';

    it(`${login}: signs in from /, sees the starter page, gets ${isAdmin ? '200' : '403'} from the admin API, signs out and is challenged again`, async function () {
      const { context, page, watch } = await freshBrowser();
      const logsBefore = stack.logs.length;
      try {
        // 1. The closed start page challenges an anonymous browser with the login page.
        await page.goto(`${stack.appOrigin}/`);
        expect(page.url()).to.equal(`${stack.appOrigin}${LOGIN_PAGE}`);
        await page.getByRole('heading', { name: 'Sign in' }).waitFor();
        await expectStyled(page);
        if (isAdmin) await page.screenshot({ path: `${ARTIFACTS}login.png`, fullPage: true });
        // Showing the login page does not start a session.
        expect(await sessionCookie(context), 'session cookie before the challenge').to.equal(undefined);

        // 2. The provider link starts the challenge: no session yet, the flow bound to this browser
        // by its flow-binding cookie, then the provider's login form.
        await page.getByRole('link', { name: `Sign in with ${stack.displayName}` }).click();
        await page.waitForURL((url) => url.href.startsWith(`${stack.issuer}/`));
        expect(await sessionCookie(context), 'no session cookie set by the challenge').to.equal(undefined);
        const flowCookie = (await context.cookies(stack.appOrigin)).find((c) => c.name === 'gatehouse.sid.flow');
        expect(flowCookie?.value).to.match(/^[A-Za-z0-9_-]{43}$/);
        expect(flowCookie).to.include({ httpOnly: true, sameSite: 'Lax', secure: false, path: '/' });

        // 3. Sign in and consent at the provider; the callback lands on the returnUrl.
        // The admin confirms with a one-time code: the demo's administrator policy wants a
        // second factor (step-up, tested in pages.test.ts), which the admin API below needs.
        await signInAtDemoProvider(page, login, isAdmin ? '123456' : undefined);
        await page.waitForURL(`${stack.appOrigin}/`);
        await page.getByRole('heading', { name: `Welcome, ${user.name}` }).waitFor();
        expect(await page.locator('.topbar .who').textContent()).to.equal(`Signed in as ${user.name}`);
        // The provider by the name people know it by, not its scheme.
        expect(await page.locator('.lead').textContent()).to.contain(`You signed in with ${stack.displayName}.`);
        await expectStyled(page);

        // The session starts at sign-in, under a fresh id.
        const signedInCookie = await sessionCookie(context);
        expect(signedInCookie?.value).to.match(/^[A-Za-z0-9_-]{43}$/);
        expect(signedInCookie).to.include({ httpOnly: true, sameSite: 'Lax', secure: false, expires: -1, path: '/' });

        // 4. The claims table shows the normalized application claims.
        const rows = await claimRows(page);
        expect(rows).to.deep.include.members([
          ['application:subject', login],
          ['application:name', user.name],
          ['application:email', user.email],
        ]);
        const roles = rows.filter(([type]) => type === 'application:role').map(([, value]) => value);
        const permissions = rows.filter(([type]) => type === 'application:permission').map(([, value]) => value);
        expect(roles, 'application:role claims').to.deep.equal(isAdmin ? ['Administrator'] : []);
        expect(permissions, 'application:permission claims').to.deep.equal(isAdmin ? ['application.manage'] : []);
        // Protocol claims are dropped by normalization.
        const types = rows.map(([type]) => type);
        for (const protocolClaim of ['nonce', 'aud', 'iat', 'exp', 'at_hash', 'iss'])
          expect(types, 'claim types').to.not.include(protocolClaim);
        await page.screenshot({ path: `${ARTIFACTS}starter-${login}.png`, fullPage: true });

        // 5. The admin API, from the browser itself (its cookie, its Accept header).
        const api = await page.goto(`${stack.appOrigin}/api/app-info/admin`);
        expect(api?.status(), 'GET /api/app-info/admin').to.equal(isAdmin ? 200 : 403);
        const body: unknown = await api?.json();
        if (isAdmin) {
          expect(api?.headers()['content-type']).to.match(/^application\/json/);
          expect(body).to.include({ name: packageName, environment: 'test' });
          expect(body).to.have.property('nodeVersion', process.version);
        } else {
          // An API answers with problem details, never a redirect to a page.
          expect(api?.headers()['content-type']).to.match(/^application\/problem\+json/);
          expect(body).to.include({ status: 403, code: 'auth.forbidden' });
          expect(page.url()).to.equal(`${stack.appOrigin}/api/app-info/admin`);
          // The page a browser is sent to when a page (not an API) is forbidden.
          const denied = await page.goto(`${stack.appOrigin}/Account/AccessDenied`);
          expect(denied?.status()).to.equal(403);
          await page.getByRole('heading', { name: 'Access denied' }).waitFor();
          await expectStyled(page);
          await page.screenshot({ path: `${ARTIFACTS}access-denied.png`, fullPage: true });
        }

        // 6. Sign out from the top bar: local session destroyed, then RP-initiated logout at the provider.
        await page.goto(`${stack.appOrigin}/`);
        const navigationsBeforeSignOut = watch.navigations.length;
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.waitForURL((url) => url.href.startsWith(`${stack.issuer}/`));
        expect(await sessionCookie(context), 'session cookie after sign-out').to.equal(undefined);
        await confirmSignOutAtDemoProvider(page);
        // The provider sends the browser to the registered post-logout URI, `/`, which challenges again.
        await page.waitForURL(`${stack.appOrigin}${LOGIN_PAGE}`);
        const signOutHops = watch.navigations.slice(navigationsBeforeSignOut);
        expect(signOutHops[0]).to.deep.equal({ method: 'POST', url: `${stack.appOrigin}/Account/Logout` });
        const endSession = signOutHops.find((hop) => hop.url.startsWith(`${stack.endSessionEndpoint}?`));
        expect(
          endSession,
          `a redirect to the provider's end_session_endpoint among ${JSON.stringify(signOutHops)}`,
        ).to.not.equal(undefined);
        const endSessionParameters = new URL(endSession?.url ?? stack.endSessionEndpoint).searchParams;
        expect(endSessionParameters.get('post_logout_redirect_uri')).to.equal(`${stack.appOrigin}/`);
        expect(endSessionParameters.get('id_token_hint'), 'id_token_hint').to.match(/^[\w-]+\.[\w-]+\.[\w-]+$/);
        expect(signOutHops.slice(-2).map((hop) => hop.url)).to.deep.equal([
          `${stack.appOrigin}/`,
          `${stack.appOrigin}${LOGIN_PAGE}`,
        ]);
        expect(await page.getByRole('status').textContent(), 'on the login page').to.equal('You have been signed out.');

        // 7. `/` challenges again: Gatehouse's own login page (DefaultChallengeScheme is Cookies),
        //    and the provider asks for credentials again because its session ended too.
        await page.goto(`${stack.appOrigin}/`);
        expect(page.url()).to.equal(`${stack.appOrigin}${LOGIN_PAGE}`);
        await page.getByRole('link', { name: `Sign in with ${stack.displayName}` }).click();
        await page.waitForURL((url) => url.href.startsWith(`${stack.issuer}/`));
        await page.locator('input[name="login"]').waitFor();

        expectNoProblemsOnGatehouse(
          watch,
          isAdmin ? [] : [`${stack.appOrigin}/api/app-info/admin`, `${stack.appOrigin}/Account/AccessDenied`],
        );
        expect(stack.logs.slice(logsBefore).filter(isErrorLine), 'errors Gatehouse logged').to.deep.equal([]);
      } catch (error) {
        // Where the journey stopped, for whoever reads the failure.
        await page.screenshot({ path: `${ARTIFACTS}failure-${login}.png`, fullPage: true }).catch(() => undefined);
        console.error(
          `Journey of ${login} failed at ${page.url()}; Gatehouse logged:\n${stack.logs.slice(logsBefore).join('')}`,
        );
        throw error;
      } finally {
        await context.close();
      }
    });
  }

  it('notices a CSP violation on a Gatehouse page (the console check can fail)', async function () {
    const { context, page, watch } = await freshBrowser();
    try {
      await page.goto(`${stack.appOrigin}${LOGIN_PAGE}`);
      // An inline <style> is refused by `style-src 'self'`, exactly like one in a view would be.
      // Both reporters must hear it: Chromium's own console message and the page's event.
      const heard = Promise.all([
        page.waitForEvent('console', (message) =>
          message.text().includes("violates the following Content Security Policy directive 'style-src 'self''"),
        ),
        page.waitForEvent('console', (message) => message.text().startsWith('CSP violation: style-src')),
      ]);
      await page.locator('head').evaluate((head) => {
        const style = head.ownerDocument.createElement('style');
        style.textContent = 'body { color: red; }';
        head.append(style);
      });
      await heard;
      const problems = watch.problemsOn(stack.appOrigin).map((problem) => problem.text);
      expect(problems).to.have.lengthOf(2);
      expect(problems.join('\n')).to.match(
        /violates the following Content Security Policy directive 'style-src 'self''/,
      );
      expect(problems.join('\n')).to.match(/^CSP violation: style-src-elem blocked inline/m);
    } finally {
      await context.close();
    }
  });
});
