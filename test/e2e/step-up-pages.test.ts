/**
 * The step-up as a person meets it in a real browser (screenshots in
 * test-artifacts/e2e/step-up-<page>-<width>.png, at a phone's, a tablet's and a laptop's
 * width): the start page says what the administrator policy still needs, the demo
 * provider says why it asks again and requires the code, and a refused step-up says why
 * and offers to try again, which starts the same step-up for the same page.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './support/chromium.js';
import { fillDemoLogin, signInAtDemoProvider } from './support/demo-provider-pages.js';
import { startDemoStack, type DemoStack } from './support/demo-stack.js';
import { PageWatch } from './support/page-watch.js';
import { expectFitsEveryWidth } from './support/page-widths.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/e2e/', import.meta.url));

describe('The step-up a person meets (chromium)', function () {
  let stack: DemoStack;
  let browser: Browser;

  before(async function () {
    mkdirSync(ARTIFACTS, { recursive: true });
    [stack, browser] = await Promise.all([startDemoStack(), launchChromium()]);
  });
  after(async function () {
    await browser?.close();
    await stack?.close();
  });

  async function fresh(): Promise<{ page: Page; watch: PageWatch }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    return { page, watch: await PageWatch.attach(context, page, ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4']) };
  }

  it('the start page says what the administrator policy needs; the provider says why it asks again and wants the code', async function () {
    const { page } = await fresh();
    await page.goto(`${stack.appOrigin}/`);
    await page.getByRole('link', { name: `Sign in with ${stack.displayName}` }).click();
    await signInAtDemoProvider(page, 'admin');
    await page.waitForURL(`${stack.appOrigin}/`);
    const administrator = page.locator('.tag', { hasText: 'Administrator' }).first();
    expect(await administrator.innerText()).to.match(/Role\.Administrator needs a recent second factor$/);
    expect(await administrator.getAttribute('class')).to.equal('tag partial');
    expect(await page.locator('.links').innerText()).to.contain('/api/organizations/:organization/app-info');
    await expectFitsEveryWidth(page, 'step-up-start', ARTIFACTS);

    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('link', { name: 'Open the administration page' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${stack.issuer}/`));
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    expect(await page.locator('.note').innerText()).to.contain(
      'the page you opened needs a sign-in from the last 10 minutes with a second factor',
    );
    const code = page.getByRole('textbox', { name: 'Confirm with a one-time code (required)' });
    expect(await code.getAttribute('required')).to.equal('');
    await expectFitsEveryWidth(page, 'step-up-provider', ARTIFACTS);
    await page.setViewportSize({ width: 1280, height: 800 });
    await fillDemoLogin(page, 'admin', '246810');
    await page.waitForURL(`${stack.appOrigin}/Admin`);
    await page.getByRole('heading', { name: 'Administration' }).waitFor();
  });

  it('a member of an organization: the organization policy "needs an organization in the route", and her organization’s endpoint to try', async function () {
    const { page } = await fresh();
    const { acme } = stack.organizations;
    await page.goto(`${stack.appOrigin}/`);
    await page.getByLabel('Sign in with your work e-mail').fill('ada@acme.test');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL((url) => url.origin === acme.origin);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${stack.appOrigin}/`);
    const member = page.locator('.tag', { hasText: 'Organization.Member' });
    expect(await member.innerText()).to.match(/Organization\.Member needs an organization in the route$/);
    const endpoint = page.getByRole('link', { name: '/api/organizations/acme/app-info' });
    await expectFitsEveryWidth(page, 'step-up-start-member', ARTIFACTS);
    await page.setViewportSize({ width: 1280, height: 800 });
    await endpoint.click();
    expect(await page.locator('body').innerText()).to.contain('"organization":"acme"');
  });

  it('another person at the SAML step-up: 403 with the reason, and Try again starts the same step-up', async function () {
    const { page, watch } = await fresh();
    await page.goto(`${stack.appOrigin}/`);
    await page.getByRole('link', { name: `Sign in with ${stack.saml.displayName}` }).click();
    await page.locator('input[name="login"]').fill('admin');
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${stack.appOrigin}/`);

    await page.goto(`${stack.appOrigin}/Admin`);
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await page.locator('input[name="login"]').fill('user');
    await page.locator('input[name="password"]').fill('any password');
    await page.locator('input[name="otp"]').fill('246810');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Someone else signed in at the identity provider').waitFor();
    expect(await page.locator('.status-code').innerText()).to.equal('403');
    expect(await page.locator('main').innerText()).to.contain('idp.subject_changed');
    await expectFitsEveryWidth(page, 'step-up-refused', ARTIFACTS);

    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('link', { name: 'Try again' }).click();
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await page.locator('input[name="login"]').fill('admin');
    await page.locator('input[name="password"]').fill('any password');
    await page.locator('input[name="otp"]').fill('246810');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${stack.appOrigin}/Admin`);
    await page.getByRole('heading', { name: 'Administration' }).waitFor();
    const problems = watch.problemsOn(stack.appOrigin).filter((problem) => !problem.text.includes('status of 403'));
    expect(problems).to.deep.equal([]);
  });
});
