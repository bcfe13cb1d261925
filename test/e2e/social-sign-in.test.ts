/**
 * Issue 14: each social provider once in a real browser (Debian's chromium, driven by
 * playwright-core), against its vendor-shaped server and an in-process Gatehouse, each on
 * a free loopback port. Screenshots land in test-artifacts/e2e/.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium } from './support/chromium.js';
import { claimRows } from './support/claim-rows.js';
import { startSocialStack, type SocialStack } from './support/social-stack.js';
import { freshBrowser as openFreshBrowser, isErrorLine } from './support/fresh-browser.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/e2e/', import.meta.url));
const LOGIN_PAGE = '/Account/Login?returnUrl=%2F';

const JOURNEYS = [
  {
    key: 'Social1',
    vendor: 'Microsoft',
    account: 'Ada Admin',
    claims: [
      ['application:subject', '6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f'],
      ['application:name', 'Ada Admin'],
      ['application:email', 'ada@example.test'],
    ],
  },
  {
    key: 'Social2',
    vendor: 'Amazon',
    account: 'Uma User',
    claims: [
      ['application:subject', 'amzn1.account.AEUMAUSER5H2N8P6R4TBV'],
      ['application:name', 'Uma User'],
      ['application:email', 'uma@example.test'],
    ],
  },
  {
    key: 'Social3',
    vendor: 'GitHub',
    account: 'Uma User',
    claims: [
      ['application:subject', '1002'],
      ['application:name', 'uma-user'],
      ['application:email', 'uma@example.test'],
    ],
  },
] as const;

describe('Social sign-in in a real browser (chromium)', function () {
  let stack: SocialStack;
  let browser: Browser;

  before(async function () {
    mkdirSync(ARTIFACTS, { recursive: true });
    stack = await startSocialStack();
    browser = await launchChromium();
  });

  after(async function () {
    await browser?.close();
    await stack?.close();
  });

  const freshBrowser = () => openFreshBrowser(browser);

  it('the login page offers exactly the three social providers, under their vendor names', async function () {
    const { context, page } = await freshBrowser();
    try {
      await page.goto(`${stack.appOrigin}/`);
      expect(page.url()).to.equal(`${stack.appOrigin}${LOGIN_PAGE}`);
      const links = await page.locator('ul.providers a').allTextContents();
      expect(links.map((text) => text.trim())).to.deep.equal([
        'Sign in with Microsoft',
        'Sign in with Amazon',
        'Sign in with GitHub',
      ]);
      await page.screenshot({ path: `${ARTIFACTS}login-social.png`, fullPage: true });
    } finally {
      await context.close();
    }
  });

  for (const journey of JOURNEYS) {
    it(`${journey.key}: ${journey.account} signs in with ${journey.vendor}, sees the claims from ${journey.vendor}'s fields, and signs out`, async function () {
      const { context, page, watch } = await freshBrowser();
      const server = stack.social.providers.find((provider) => provider.key === journey.key)?.server;
      const logsBefore = stack.logs.length;
      try {
        await page.goto(`${stack.appOrigin}/`);
        await page.getByRole('link', { name: `Sign in with ${journey.vendor}` }).click();
        await page.waitForURL((url) => url.href.startsWith(`${server?.endpoints.authorization}?`));
        await page.getByLabel(journey.account).check();
        await page.getByRole('button', { name: 'Allow' }).click();

        await page.waitForURL(`${stack.appOrigin}/`);
        const name = journey.claims[1][1];
        await page.getByRole('heading', { name: `Welcome, ${name}` }).waitFor();
        const rows = await claimRows(page);
        expect(rows).to.deep.include.members(journey.claims.map(([type, value]) => [type, value]));
        const cookie = (await context.cookies(stack.appOrigin)).find((c) => c.name === 'gatehouse.sid');
        expect(cookie).to.include({ httpOnly: true, sameSite: 'Lax' });
        await page.screenshot({ path: `${ARTIFACTS}starter-${journey.vendor.toLowerCase()}.png`, fullPage: true });

        // Sign out: the local session ends (these vendors offer no sign-out redirect), straight to the login page.
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.waitForURL(`${stack.appOrigin}/Account/Login`);
        expect(await page.getByRole('status').textContent()).to.equal('You have been signed out.');
        expect((await context.cookies(stack.appOrigin)).some((c) => c.name === 'gatehouse.sid')).to.equal(false);

        expect(watch.problemsOn(stack.appOrigin), 'console errors on Gatehouse pages').to.deep.equal([]);
        expect(watch.offHostRequests, 'requests that leave loopback').to.deep.equal([]);
        expect(stack.logs.slice(logsBefore).filter(isErrorLine), 'errors Gatehouse logged').to.deep.equal([]);
      } catch (error) {
        await page
          .screenshot({ path: `${ARTIFACTS}failure-${journey.key}.png`, fullPage: true })
          .catch(() => undefined);
        console.error(
          `${journey.key} journey failed at ${page.url()}; Gatehouse logged:\n${stack.logs.slice(logsBefore).join('')}`,
        );
        throw error;
      } finally {
        await context.close();
      }
    });
  }

  it('a cancelled consent ends on the calm sign-in-cancelled page, with no session and the way back to the login page', async function () {
    const { context, page } = await freshBrowser();
    try {
      await page.goto(`${stack.appOrigin}/`);
      await page.getByRole('link', { name: 'Sign in with GitHub' }).click();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('heading', { name: 'Sign-in cancelled' }).waitFor();
      expect(page.url()).to.match(new RegExp(`^${stack.appOrigin}/signin-social3\\?`));
      expect(await page.locator('details, .status-code').count(), 'no stack toggle, no status number').to.equal(0);
      expect((await context.cookies(stack.appOrigin)).some((c) => c.name === 'gatehouse.sid')).to.equal(false);
      await page.screenshot({ path: `${ARTIFACTS}consent-cancelled.png`, fullPage: true });
      await page.getByRole('link', { name: 'Back to sign-in' }).click();
      await page.getByRole('link', { name: 'Sign in with GitHub' }).waitFor();
    } finally {
      await context.close();
    }
  });
});
