/**
 * The setup portal's "Your identity provider" and "What to enter there" in a real browser
 * (Debian's chromium through playwright-core): the vendor and protocol chosen with the
 * keyboard alone, the form accepted (its Origin header sent), the vendor's steps and values
 * fitting a phone's width, and a value's Copy button (public/portal.js) putting it on the
 * clipboard and saying so in the live region; no console error or CSP violation.
 * Screenshots in test-artifacts/e2e/portal-provider-*.png and portal-service-provider-*.png.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { startAdminHarness, type AdminHarness } from '../support/admin-api.js';
import { TestBrowser } from '../support/oidc-app.js';
import { launchChromium } from './support/chromium.js';
import { PageWatch } from './support/page-watch.js';
import { expectFitsEveryWidth } from './support/page-widths.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/e2e/', import.meta.url));

describe('the setup portal: your identity provider, and what to enter there (chromium)', function () {
  this.timeout(60_000);
  let harness: AdminHarness;
  let browser: Browser;
  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [harness, browser] = await Promise.all([startAdminHarness(['acme']), launchChromium()]);
  });
  after(async () => {
    await browser?.close();
    await harness?.close();
  });

  /** The portal cookie of a link opened as its IT admin (its page, then its button's POST). */
  async function portalCookie(): Promise<{ name: string; value: string }> {
    const made = await harness.api('POST', '/api/admin/organizations/acme/setup-links', {});
    const { url } = (await made.json()) as { url: string };
    const opener = new TestBrowser();
    await opener.get(url);
    await opener.jar.fetch(url, { method: 'POST', headers: { origin: harness.app.url } });
    const [name = '', value = ''] = (opener.jar.header(harness.app.url) ?? '').split('=');
    return { name, value };
  }

  /** Tabs forward until the element with an id starting `prefix` has the focus; its id. */
  async function tabTo(page: Page, prefix: string): Promise<string> {
    for (let presses = 0; presses < 40; presses += 1) {
      await page.keyboard.press('Tab');
      const focused = String(await page.evaluate('document.activeElement && document.activeElement.id'));
      if (focused.startsWith(prefix)) return focused;
    }
    throw new Error(`nothing whose id starts ${prefix} is reached by Tab`);
  }

  it('is chosen with the keyboard alone, fits a phone, and copies a value to the clipboard, saying so', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: harness.app.url });
    await context.addCookies([{ ...(await portalCookie()), url: `${harness.app.url}/setup/portal` }]);
    const page = await context.newPage();
    const watch = await PageWatch.attach(context, page);

    await page.goto(`${harness.app.url}/setup/portal/provider`);
    await expectFitsEveryWidth(page, 'portal-provider', ARTIFACTS);
    await page.setViewportSize({ width: 390, height: 800 });
    expect(await tabTo(page, 'vendor-')).to.equal('vendor-okta');
    await page.keyboard.press('Space');
    // Arrow keys move the choice within the group: Okta, Entra ID ... Keycloak is the eighth.
    for (let presses = 0; presses < 7; presses += 1) await page.keyboard.press('ArrowDown');
    expect(await page.isChecked('#vendor-keycloak')).to.equal(true);
    expect(await tabTo(page, 'protocol-')).to.equal('protocol-Saml2');
    await page.keyboard.press('ArrowDown');
    expect(await page.isChecked('#protocol-OpenIdConnect')).to.equal(true);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${harness.app.url}/setup/portal/service-provider`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('What to enter in Keycloak');

    await expectFitsEveryWidth(page, 'portal-service-provider', ARTIFACTS);
    await page.getByRole('button', { name: 'Copy Redirect URI (sign-in)' }).click();
    await page.locator('#copy-status').getByText('Copied Redirect URI (sign-in).').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).to.equal(
      `${harness.app.url}/connections/acme/signin-oidc`,
    );
    expect(watch.problemsOn(harness.app.url)).to.deep.equal([]);
    await context.close();
  });
});
