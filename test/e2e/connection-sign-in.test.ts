/**
 * Issue 34: the demo's two customer organizations in a real browser (Debian's chromium
 * through playwright-core), as `npm run demo` composes them. A person types their work
 * address in "Sign in with your work e-mail" and lands at their organization's own
 * identity provider: Acme's SAML identity provider on 127.0.0.3 (its POST to the ACS
 * cross-site), Globex's OpenID provider on 127.0.0.4. The starter page shows the
 * organization Gatehouse set from the connection, and signing out signs out at the
 * organization's provider too (SAML single logout, OpenID Connect RP-initiated logout),
 * each reached through a page of ours: the sign-out form's CSP could not name their
 * origins for a redirect (src/adapters/koa/form-redirect.ts). Mallory, an account of Acme's identity
 * provider with a Globex address, is refused: one organization's identity provider
 * cannot sign in another's people. Screenshots in test-artifacts/e2e/connections-*.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DemoOrganization } from '../../scripts/demo-organizations.js';
import { launchChromium } from './support/chromium.js';
import { claimRows } from './support/claim-rows.js';
import { startDemoStack, type DemoStack } from './support/demo-stack.js';
import { PageWatch } from './support/page-watch.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/e2e/', import.meta.url));
const SIGNED_OUT = 'You have been signed out.';

describe('Connections: people found by their work e-mail, signed in by their organization (chromium)', function () {
  let stack: DemoStack;
  let browser: Browser;
  const open: BrowserContext[] = [];

  before(async function () {
    mkdirSync(ARTIFACTS, { recursive: true });
    [stack, browser] = await Promise.all([startDemoStack(), launchChromium()]);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((context) => context.close()));
  });
  after(async function () {
    await browser?.close();
    await stack?.close();
  });

  /** A fresh profile that may visit the app and `organization`'s identity provider, and nothing else. */
  async function freshBrowser(organization: DemoOrganization): Promise<{ page: Page; watch: PageWatch }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    open.push(context);
    const page = await context.newPage();
    const hosts = ['127.0.0.1', new URL(organization.origin).hostname];
    return { page, watch: await PageWatch.attach(context, page, hosts) };
  }

  /** From the closed start page: the address typed in the e-mail form, posted; the organization's provider reached. */
  async function typeWorkEmail(page: Page, email: string, organization: DemoOrganization, shot: string) {
    await page.goto(`${stack.appOrigin}/`);
    await page.waitForURL(`${stack.appOrigin}/Account/Login?returnUrl=%2F`);
    await page.getByLabel('Sign in with your work e-mail').fill(email);
    await page.screenshot({ path: join(ARTIFACTS, `connections-login-${shot}.png`), fullPage: true });
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL((url) => url.origin === organization.origin);
  }

  it('ada@acme.test: signs in through Acme’s SAML identity provider, and the starter page shows organization acme', async () => {
    const { acme } = stack.organizations;
    const { page, watch } = await freshBrowser(acme);
    await typeWorkEmail(page, 'ada@acme.test', acme, 'acme');
    // The address travelled as the AuthnRequest's Subject: the provider's form names Ada already.
    expect(await page.locator('input[name="login"]').inputValue()).to.equal('ada');
    await page.screenshot({ path: join(ARTIFACTS, 'connections-acme-identity-provider.png'), fullPage: true });
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${stack.appOrigin}/`);
    await page.getByRole('heading', { name: 'Welcome, Ada Lovelace' }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'connections-acme-signed-in.png'), fullPage: true });

    expect(await claimRows(page)).to.deep.include.members([
      ['application:organization', 'acme'],
      ['application:connection', 'Acme'],
      ['application:email', 'ada@acme.test'],
      // Acme's group acme-admins, mapped by its connection's RoleMappings: a role within Acme only.
      ['application:organization_role', 'admin'],
    ]);
    expect((await claimRows(page)).filter(([type]) => type === 'application:role')).to.deep.equal([]);
    const status = async (path: string) => (await page.request.get(`${stack.appOrigin}${path}`)).status();
    expect(await status('/api/organizations/acme/app-info/admin'), "Acme's administration").to.equal(200);
    expect(await status('/api/app-info/admin'), "the deployment's administration").to.equal(403);
    // The identity provider's POST reached the connection's own ACS from its site, then again from ours.
    const acs = `${stack.appOrigin}/connections/acme/saml2/acs`;
    expect(watch.navigations.filter((hop) => hop.url === acs).map((hop) => hop.method)).to.deep.equal(['POST', 'POST']);

    // Single logout: our LogoutRequest to Acme's provider, its LogoutResponse back, the login page.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText(SIGNED_OUT).waitFor();
    expect(watch.navigations.some((hop) => hop.url.startsWith(`${acme.origin}/slo?SAMLRequest=`))).to.be.true;
    expect(watch.navigations.some((hop) => hop.url.startsWith(`${stack.appOrigin}/connections/acme/saml2/logout?`))).to
      .be.true;
    expect(watch.problemsOn(stack.appOrigin)).to.deep.equal([]);
    expect(watch.offHostRequests).to.deep.equal([]);
  });

  it('grace@globex.test: signs in through Globex’s OpenID provider, and the starter page shows organization globex', async () => {
    const { globex } = stack.organizations;
    const { page, watch } = await freshBrowser(globex);
    await typeWorkEmail(page, 'grace@globex.test', globex, 'globex');
    // The address travelled as login_hint: the provider's form names Grace already.
    expect(await page.locator('input[name="login"]').inputValue()).to.equal('grace');
    await page.screenshot({ path: join(ARTIFACTS, 'connections-globex-identity-provider.png'), fullPage: true });
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${stack.appOrigin}/`);
    await page.getByRole('heading', { name: 'Welcome, Grace Hopper' }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'connections-globex-signed-in.png'), fullPage: true });

    expect(await claimRows(page)).to.deep.include.members([
      ['application:organization', 'globex'],
      ['application:connection', 'Globex'],
      ['application:email', 'grace@globex.test'],
    ]);
    expect(watch.navigations.some((hop) => hop.url.startsWith(`${stack.appOrigin}/connections/globex/signin-oidc?`))).to
      .be.true;

    // RP-initiated logout at Globex's provider, which asks, then sends the browser back.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.origin === globex.origin);
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.getByText(SIGNED_OUT).waitFor();
    expect(new URL(page.url()).origin).to.equal(stack.appOrigin);
    expect(watch.problemsOn(stack.appOrigin)).to.deep.equal([]);
    expect(watch.offHostRequests).to.deep.equal([]);
  });

  it('mallory, an Acme account with a Globex address: refused with idp.domain_not_allowed, and nobody is signed in', async () => {
    const { acme } = stack.organizations;
    expect(acme.users.mallory?.email).to.equal('mallory@globex.test');
    const { page } = await freshBrowser(acme);
    await typeWorkEmail(page, 'ada@acme.test', acme, 'mallory');
    await page.locator('input[name="login"]').fill('mallory');
    await page.locator('input[name="password"]').fill('any password');
    const refused = page.waitForResponse(
      (response) => response.url() === `${stack.appOrigin}/connections/acme/saml2/acs` && response.status() === 403,
    );
    await page.getByRole('button', { name: 'Sign in' }).click();
    await refused;
    await page.getByText('idp.domain_not_allowed').waitFor();
    const text = await page.locator('main').innerText();
    expect(text).to.contain("Your e-mail address is not in one of this organization's domains");
    await page.screenshot({ path: join(ARTIFACTS, 'connections-refused.png'), fullPage: true });
    const cookies = await page.context().cookies(stack.appOrigin);
    expect(cookies.map((cookie) => cookie.name)).not.to.include('gatehouse.sid');
    // Still signed out: the start page sends the browser to the login page.
    await page.goto(`${stack.appOrigin}/`);
    await page.waitForURL(`${stack.appOrigin}/Account/Login?returnUrl=%2F`);
  });

  it('an address whose domain no organization holds: the login page again, saying so', async () => {
    const { globex } = stack.organizations;
    const { page } = await freshBrowser(globex);
    await page.goto(`${stack.appOrigin}/Account/Login`);
    await page.getByLabel('Sign in with your work e-mail').fill('someone@initech.test');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('No organization signs in with that e-mail domain here.').waitFor();
    expect(new URL(page.url()).origin).to.equal(stack.appOrigin);
    await page.screenshot({ path: join(ARTIFACTS, 'connections-unknown-domain.png'), fullPage: true });
  });
});
