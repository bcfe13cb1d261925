/**
 * Issue 46: a customer's IT admin sets up their organization's single sign-on from a setup
 * link, in a real browser (Debian's chromium through playwright-core), at a laptop's width
 * (1280 px) and a phone's (390 px), once with an OpenID Connect and once with a SAML
 * identity provider (the demo's, another site than the app, registered beforehand with the
 * redirect URI or ACS URL the portal then shows). From the link made through the
 * administration API: its button, the vendor, the values to enter, what the identity
 * provider gave, the domain and its TXT record published on the demo's DNS server with the
 * command the page shows, the verification, the test sign-in at the provider's own page,
 * "Passed", the activation; then a person of that organization signs in through the login
 * page's e-mail form, and the portal's recent attempts show it; the help page, leaving the
 * setup, and the portal once its session has ended. Every portal page is
 * checked with axe-core (no serious or critical violation), fits the width, and shows no
 * console error or CSP violation. Screenshots in test-artifacts/e2e/portal-<protocol>-<width>-<page>.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { curlRequest } from '../support/printed-curl.js';
import { blockingViolations, type AxeViolation } from './support/axe.js';
import { launchChromium } from './support/chromium.js';
import { claimRows } from './support/claim-rows.js';
import { PageWatch } from './support/page-watch.js';
import { startPortalStack, type PortalOrganization, type PortalStack } from './support/portal-stack.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/e2e/', import.meta.url));

/** The promise for the demo: from the link to a working sign-in in under 3 minutes. */
const THREE_MINUTES_MS = 180_000;

const CASES = [
  { organization: 'initrode', protocol: 'OpenIdConnect', login: 'bill', name: 'Bill Lumbergh', width: 1280 },
  { organization: 'umbrella', protocol: 'OpenIdConnect', login: 'alice', name: 'Alice Abernathy', width: 390 },
  { organization: 'hooli', protocol: 'Saml2', login: 'gavin', name: 'Gavin Belson', width: 1280 },
  { organization: 'soylent', protocol: 'Saml2', login: 'sol', name: 'Sol Roth', width: 390 },
] as const;

/** The vendor the IT admin chooses: the demo providers are no vendor's. */
const VENDOR = { OpenIdConnect: 'Another OpenID Connect provider', Saml2: 'Another SAML 2.0 identity provider' };
const PROTOCOL = { OpenIdConnect: 'OpenID Connect', Saml2: 'SAML 2.0' };

describe('The setup portal, from the link to a sign-in, at 1280 and 390 px (chromium, axe-core)', function () {
  this.timeout(120_000);
  let stack: PortalStack;
  let browser: Browser;
  const open: BrowserContext[] = [];
  /** Each flow's time from opening the link to the person signed in, without the checks' own time. */
  const timings: string[] = [];

  before(async function () {
    mkdirSync(ARTIFACTS, { recursive: true });
    [stack, browser] = await Promise.all([startPortalStack(CASES), launchChromium()]);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((context) => context.close()));
  });
  after(async function () {
    if (timings.length > 0) console.log(`      From the link to a sign-in:\n${timings.join('\n')}`);
    await browser?.close();
    await stack?.close();
  });

  async function freshPage(organization: PortalOrganization, width: number): Promise<{ page: Page; watch: PageWatch }> {
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    open.push(context);
    const page = await context.newPage();
    return { page, watch: await PageWatch.attach(context, page, ['127.0.0.1', new URL(organization.origin).hostname]) };
  }

  for (const { organization: name, protocol, width } of CASES) {
    it(`${PROTOCOL[protocol]} at ${width} px: an IT admin connects ${name}, and its people sign in`, async () => {
      const organization = stack.organizations[name] ?? expect.fail(`no ${name}`);
      const { page, watch } = await freshPage(organization, width);
      const app = stack.appOrigin;
      const findings: Array<{ page: string; violations: AxeViolation[] }> = [];
      let checking = 0;
      /** Axe, the width and a screenshot of the page as it is now: their time is not the flow's. */
      const check = async (shot: string) => {
        const from = Date.now();
        await page.screenshot({
          path: join(ARTIFACTS, `portal-${protocol === 'Saml2' ? 'saml' : 'oidc'}-${width}-${shot}.png`),
          fullPage: true,
        });
        findings.push({ page: `${shot} (${page.url()})`, violations: await blockingViolations(page) });
        const scrollWidth = Number(await page.evaluate('document.documentElement.scrollWidth'));
        expect(scrollWidth, `the width of ${shot} at ${width} px`).to.be.at.most(width);
        checking += Date.now() - from;
      };

      const started = Date.now();
      // The link, made through the administration API, and its own page: nothing is spent until its button.
      const link = await stack.setupLink(organization);
      await page.goto(link);
      await page.getByRole('heading', { name: `Set up single sign-on for ${name}` }).waitFor();
      await check('link');
      await page.getByRole('button', { name: 'Start the setup' }).click();
      await page.waitForURL(`${app}/setup/portal`);
      await check('overview');

      // 1. The identity provider.
      await page.getByRole('link', { name: 'choose your identity provider' }).click();
      await page.waitForURL(`${app}/setup/portal/provider`);
      await check('provider');
      await page.getByLabel(VENDOR[protocol]).check();
      await page.getByLabel(PROTOCOL[protocol], { exact: true }).check();
      await page.getByRole('button', { name: 'Save and continue' }).click();

      // 2. What to enter there: the values the provider was registered with, exactly.
      await page.waitForURL(`${app}/setup/portal/service-provider`);
      await check('service-provider');
      if (protocol === 'Saml2') {
        expect(await page.locator('#value-acsUrl').textContent()).to.equal(organization.registered);
        expect(await page.locator('#value-entityId').textContent()).to.equal(organization.registered);
      } else {
        expect(await page.locator('#value-redirectUri').textContent()).to.equal(organization.registered);
      }
      await page.getByRole('link', { name: /^Next: what / }).click();

      // 3. What it gave you, checked as it is typed, then saved with the first domain.
      await page.waitForURL(`${app}/setup/portal/identity-provider`);
      expect(await page.getByLabel(PROTOCOL[protocol], { exact: true }).isChecked()).to.equal(true);
      for (const [label, value] of Object.entries(organization.given)) {
        await page.getByLabel(label, { exact: true }).fill(value);
      }
      await page.getByLabel("Your organization's e-mail domain").fill(organization.domain);
      await page
        .locator('#portal-checks')
        .getByText(/^Passed:/)
        .first()
        .waitFor();
      await check('identity-provider');
      await page.getByRole('button', { name: 'Save and continue' }).click();

      // 4. Your domains: the TXT record, published with the command the page shows, then verified.
      await page.waitForURL(`${app}/setup/portal/domains`);
      const domain = page.locator('#domain-1');
      await domain.getByRole('heading', { name: organization.domain }).waitFor();
      await check('domains');
      const command = (await domain.locator('.portal-command code').textContent()) ?? '';
      const { url, init } = curlRequest(command);
      expect(url).to.equal(`${stack.dns.controlUrl}/records`);
      const published = await fetch(url, init);
      expect(published.status, await published.clone().text()).to.equal(201);
      await page.getByRole('button', { name: `Verify ${organization.domain}` }).click();
      await page.getByText(`${organization.domain} is verified`).waitFor();
      await check('domains-verified');

      // 5. The test sign-in, at the identity provider's own page; back through this site's own page.
      await page.getByRole('link', { name: 'Next: test sign-in' }).click();
      await page.waitForURL(`${app}/setup/portal/test`);
      await check('test');
      await page.getByRole('button', { name: 'Start a test sign-in' }).click();
      await page.waitForURL((at) => at.origin === organization.origin);
      await signInAtProvider(page, organization);
      await page.waitForURL((at) => at.origin === app);
      if (await page.getByRole('heading', { name: 'Your test sign-in is back' }).isVisible()) {
        await check('test-continue');
        await page.getByRole('link', { name: 'See the result' }).click();
      }
      await page.waitForURL(`${app}/setup/portal/test/result`);
      await page.getByText('Passed: this person would be signed in').waitFor();
      await check('test-result');

      // 6. Activate.
      await page.getByRole('button', { name: 'Activate single sign-on' }).click();
      await page.waitForURL(`${app}/setup/portal`);
      await page.getByText('Single sign-on is active').waitFor();
      await check('overview-active');

      // A person of the organization, in a browser of their own: the login page's e-mail form.
      const person = await freshPage(organization, width);
      await person.page.goto(`${app}/`);
      await person.page.getByLabel('Sign in with your work e-mail').fill(organization.person.email);
      await person.page.getByRole('button', { name: 'Continue' }).click();
      await person.page.waitForURL((at) => at.origin === organization.origin);
      await signInAtProvider(person.page, organization);
      await person.page.getByRole('heading', { name: `Welcome, ${organization.person.name}` }).waitFor();
      const elapsed = Date.now() - started - checking;
      expect(await claimRows(person.page)).to.deep.include.members([
        ['application:organization', name],
        ['application:connection', organization.connection],
        ['application:email', organization.person.email],
      ]);
      timings.push(`        ${PROTOCOL[protocol]} at ${width} px: ${(elapsed / 1000).toFixed(1)} s`);
      expect(elapsed).to.be.below(THREE_MINUTES_MS);

      // The portal's recent attempts show that sign-in.
      await page.getByRole('link', { name: 'Recent sign-in attempts' }).click();
      await page.waitForURL(`${app}/setup/portal/attempts`);
      await page.getByText('Signed in').first().waitFor();
      await check('attempts');
      // The help for each identity provider, linked from every portal page.
      await page.getByRole('link', { name: 'Help for your identity provider' }).click();
      await page.waitForURL(`${app}/setup/portal/help`);
      await check('help');
      const problems = watch.problemsOn(app);
      // The link was spent by its button: opened again, it says so (a 404, which the console reports).
      await page.goto(link);
      await page.getByRole('heading', { name: 'This setup link no longer works' }).waitFor();
      await check('link-spent');
      // Leaving the setup, and the portal afterwards: its session has ended (a refusal, which the console reports).
      await page.goto(`${app}/setup/portal`);
      await page.getByRole('button', { name: 'Leave the setup' }).click();
      await page.getByRole('heading', { name: 'You left the setup' }).waitFor();
      await check('left');
      await page.goto(`${app}/setup/portal`);
      await page.getByRole('heading', { name: 'Your setup session has ended' }).waitFor();
      await check('ended');

      expect(
        findings.filter((found) => found.violations.length > 0),
        'axe-core: serious or critical violations',
      ).to.deep.equal([]);
      expect(problems, 'console errors or CSP violations on the portal').to.deep.equal([]);
      expect(person.watch.problemsOn(app)).to.deep.equal([]);
      expect(watch.offHostRequests).to.deep.equal([]);
    });
  }
});

/** The demo identity provider's own sign-in (any password): oidc-provider's form and consent, or the SAML one's form. */
async function signInAtProvider(page: Page, organization: PortalOrganization): Promise<void> {
  await page.locator('input[name="login"]').fill(organization.person.login);
  await page.locator('input[name="password"]').fill('any password');
  if (organization.protocol === 'Saml2') {
    await page.getByRole('button', { name: 'Sign in' }).click();
    return;
  }
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}
