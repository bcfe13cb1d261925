/**
 * Issue 33: OpenID Connect Front-Channel Logout in a real browser (Debian's chromium through
 * playwright-core). The demo identity provider plays LemonLDAP::NG or Entra ID: it knows
 * Gatehouse by a front-channel logout URI only, and Gatehouse has back-channel logout off.
 * It listens on 127.0.0.2, another site than the app on 127.0.0.1, so its iframe is a
 * third-party frame: the browser sends it without Gatehouse's SameSite=Lax session cookie,
 * and the `sid` alone must end the session.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser, Request } from 'playwright-core';
import { startDemoIdentityProvider, type DemoIdentityProvider } from '../../scripts/demo-identity-provider.js';
import { DEMO_CALLBACK_PATH, DEMO_FRONTCHANNEL_LOGOUT_PATH, demoSettings } from '../../scripts/demo-settings.js';
import { DEMO_USERS } from '../../scripts/demo-users.js';
import { freePort } from '../../scripts/free-port.js';
import { createGatehouse, type Gatehouse } from '../../src/bootstrap/gatehouse.js';
import { launchChromium } from './support/chromium.js';
import { confirmSignOutAtDemoProvider, signInAtDemoProvider } from './support/demo-provider-pages.js';
import { isErrorLine } from './support/fresh-browser.js';
import { PageWatch } from './support/page-watch.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/e2e/', import.meta.url));
const DISPLAY_NAME = 'the demo identity provider';
const SESSION_COOKIE = 'gatehouse.sid';

describe('Front-channel logout in a real browser (chromium)', function () {
  let browser: Browser;
  let idp: DemoIdentityProvider;
  let gatehouse: Gatehouse;
  let appOrigin: string;
  const logs: string[] = [];

  before(async function () {
    mkdirSync(ARTIFACTS, { recursive: true });
    const appPort = await freePort();
    appOrigin = `http://127.0.0.1:${appPort}`;
    const clientId = 'gatehouse-e2e-frontchannel';
    const clientSecret = 'front-channel-e2e-secret';
    idp = await startDemoIdentityProvider({
      host: '127.0.0.2',
      clients: [
        {
          clientId,
          clientSecret,
          redirectUris: [`${appOrigin}${DEMO_CALLBACK_PATH}`],
          postLogoutRedirectUris: [`${appOrigin}/`],
          frontchannelLogoutUri: `${appOrigin}${DEMO_FRONTCHANNEL_LOGOUT_PATH}`,
        },
      ],
    });
    gatehouse = await createGatehouse({
      env: {
        NODE_ENV: 'test',
        ProjectTemplate__Logging__Level: 'warn',
        ...demoSettings({ appOrigin, issuer: idp.issuer, clientId, clientSecret, displayName: DISPLAY_NAME }),
        ProjectTemplate__Authentication__Providers__OpenIdConnect__BackchannelLogoutPath: '',
      },
      logDestination: { write: (line: string) => void logs.push(line) },
    });
    await gatehouse.listen(appPort, '127.0.0.1');
    browser = await launchChromium();
  });

  after(async function () {
    await browser?.close();
    await gatehouse?.shutdown();
    await idp?.close();
  });

  it("signing out at the provider's own sign-out page, whose page frames Gatehouse's front-channel logout, makes Gatehouse anonymous", async function () {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    const watch = await PageWatch.attach(context, page, ['127.0.0.1', '127.0.0.2']);
    const frameRequests: Request[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(`${appOrigin}${DEMO_FRONTCHANNEL_LOGOUT_PATH}?`)) frameRequests.push(request);
    });
    try {
      // Signed in to Gatehouse through the provider.
      await page.goto(`${appOrigin}/`);
      await page.getByRole('link', { name: `Sign in with ${DISPLAY_NAME}` }).click();
      await page.waitForURL((url) => url.href.startsWith(`${idp.issuer}/`));
      await signInAtDemoProvider(page, 'admin');
      await page.waitForURL(`${appOrigin}/`);
      await page.getByRole('heading', { name: `Welcome, ${DEMO_USERS.admin.name}` }).waitFor();
      const cookies = await context.cookies(appOrigin);
      expect(cookies.map((cookie) => cookie.name)).to.include(SESSION_COOKIE);

      // The user signs out at the provider itself, not from Gatehouse.
      await page.goto(`${idp.issuer}/session/end`);
      await confirmSignOutAtDemoProvider(page);
      // The provider's page frames Gatehouse, then goes on to its own "signed out" page.
      await page.getByRole('heading', { name: 'Signed out' }).waitFor();
      await page.screenshot({ path: `${ARTIFACTS}frontchannel-signed-out-at-provider.png`, fullPage: true });

      expect(frameRequests, 'one front-channel frame').to.have.lengthOf(1);
      const [frameRequest] = frameRequests;
      const frameUrl = new URL(frameRequest?.url() ?? appOrigin);
      expect(frameUrl.searchParams.get('iss')).to.equal(idp.issuer);
      expect(frameUrl.searchParams.get('sid')).to.be.a('string').and.not.equal('');
      expect(frameRequest?.frame().parentFrame()?.url(), 'framed by the provider').to.match(
        new RegExp(`^${idp.issuer.replace(/[.]/g, '\\.')}/`),
      );
      const sent = await frameRequest?.allHeaders();
      expect(sent?.cookie ?? '', 'a third-party frame: no session cookie of ours').not.to.contain(SESSION_COOKIE);
      const answer = await frameRequest?.response();
      expect(answer?.status()).to.equal(200);
      expect((await answer?.allHeaders())?.['content-security-policy']).to.contain(
        `frame-ancestors ${new URL(idp.issuer).origin}`,
      );

      // The cookie is still in the browser, but its session is gone: Gatehouse challenges.
      expect((await context.cookies(appOrigin)).map((cookie) => cookie.name)).to.include(SESSION_COOKIE);
      await page.goto(`${appOrigin}/`);
      expect(page.url()).to.equal(`${appOrigin}/Account/Login?returnUrl=%2F`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();

      // The frame was allowed (no frame-ancestors refusal), and nothing went wrong on either side.
      expect(watch.problems, 'console errors (a refused frame would be one)').to.deep.equal([]);
      expect(watch.offHostRequests).to.deep.equal([]);
      expect(logs.filter(isErrorLine), 'errors Gatehouse logged').to.deep.equal([]);
    } catch (error) {
      await page.screenshot({ path: `${ARTIFACTS}failure-frontchannel.png`, fullPage: true }).catch(() => undefined);
      throw error;
    } finally {
      await context.close();
    }
  });
});
