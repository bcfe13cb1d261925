/**
 * The setup portal's "What it gave you" and "Your domains" in a real browser: the page's
 * script (public/portal-checks.js) shows the chosen protocol's fields, checks them as they
 * are typed in its live region, reads a chosen metadata file into its text area; the
 * domains page gets its copy buttons; both fit a phone's width, with no console error or
 * CSP violation.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { CLIENT_SECRET, startAdminHarness, type AdminHarness } from '../support/admin-api.js';
import { SamlTestIdentityProvider } from '../support/saml-identity-provider.js';
import { makeSetupLink } from '../support/setup-portal.js';
import { launchChromium } from './support/chromium.js';
import { PageWatch } from './support/page-watch.js';
import { expectFitsEveryWidth } from './support/page-widths.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/e2e/', import.meta.url));

describe('the setup portal: what it gave you, and your domains (chromium)', function () {
  this.timeout(60_000);
  let harness: AdminHarness;
  let idp: SamlTestIdentityProvider;
  let browser: Browser;
  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [harness, idp, browser] = await Promise.all([
      startAdminHarness(['acme']),
      SamlTestIdentityProvider.start(),
      launchChromium(),
    ]);
  });
  after(async () => {
    await browser?.close();
    await harness?.close();
    await idp?.close();
  });

  it('checks as the admin types, reads a metadata file, and saves; the domains page has copy buttons', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const watch = await PageWatch.attach(context, page);
    // The link's button, posted from this site, puts the portal's cookie in the browser.
    const opened = await context.request.post(await makeSetupLink(harness, 'acme'), {
      headers: { origin: harness.app.url },
      maxRedirects: 0,
    });
    expect(opened.status()).to.equal(303);
    await page.goto(`${harness.app.url}/setup/portal/identity-provider`);

    // SAML chosen: its fields only, the file chooser shown by the script.
    const samlFields = page.locator('fieldset[data-protocol="Saml2"]');
    const oidcFields = page.locator('fieldset[data-protocol="OpenIdConnect"]');
    expect(await samlFields.isVisible()).to.equal(true);
    expect(await oidcFields.isVisible()).to.equal(false);
    expect(await page.locator('#metadata-file').isVisible()).to.equal(true);

    const checks = page.locator('#portal-checks');
    await page.getByLabel('Metadata URL').fill(idp.metadataUrl);
    await checks.getByText('Passed: The metadata was fetched.').waitFor();
    expect(await checks.textContent()).to.include(`describes the identity provider "${idp.entityId}"`);
    await expectFitsEveryWidth(page, 'portal-identity-provider', ARTIFACTS);

    await page.getByLabel('Metadata URL').fill('');
    await page.locator('#metadata-file').setInputFiles({
      name: 'metadata.xml',
      mimeType: 'application/xml',
      buffer: Buffer.from(idp.metadata()),
    });
    await page.waitForFunction(
      "document.getElementById('field-IdpMetadata').value.includes('EntityDescriptor')",
      undefined,
      { timeout: 5_000 },
    );
    await checks.getByText('Passed: The metadata is a well-formed XML document.').waitFor();
    expect(await checks.textContent()).not.to.include('fetched');

    // OpenID Connect chosen: its fields only, checked as typed, the secret never sent to the check.
    await page.getByLabel('OpenID Connect').check();
    expect(await samlFields.isVisible()).to.equal(false);
    const sentToCheck: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/identity-provider/check')) sentToCheck.push(request.postData() ?? '');
    });
    await page.getByLabel('Client secret').fill(CLIENT_SECRET);
    await page.getByLabel('Issuer (Authority)').fill(harness.provider.issuer);
    await checks.getByText('Not checked:').waitFor();
    expect(await checks.textContent()).to.include('Passed: The OpenID discovery document was fetched.');
    expect(sentToCheck.length).to.be.greaterThan(0);
    expect(sentToCheck.join('\n')).not.to.include(CLIENT_SECRET);

    await page.getByLabel('Client ID').fill('acme-client');
    await page.getByLabel("Your organization's e-mail domain").fill('example.test');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await page.waitForURL(`${harness.app.url}/setup/portal/domains`);
    expect(await page.getByRole('button', { name: /^Copy the record's value/ }).count()).to.equal(1);
    await expectFitsEveryWidth(page, 'portal-domains', ARTIFACTS);

    expect(watch.problemsOn(harness.app.url)).to.deep.equal([]);
    await context.close();
  });
});
