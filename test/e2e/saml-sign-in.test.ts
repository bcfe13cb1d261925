/**
 * Issue 13: SAML 2.0 sign-in in a real browser (Debian's chromium through playwright-core).
 * The demo SAML identity provider listens on 127.0.0.2, another site than the app on
 * 127.0.0.1, so its POST to the ACS is cross-site: the browser holds back the SameSite=Lax
 * flow cookie, Gatehouse answers with a page that posts the response again from its own
 * site, and only that second POST, carrying the cookie, completes the sign-in. Proven in
 * development (http) and in the production posture (https through a TLS-terminating
 * proxy, NODE_ENV=production, TrustProxy, the real entry point as its own process).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DEMO_USERS } from '../../scripts/demo-users.js';
import {
  startDemoSamlIdentityProvider,
  type DemoSamlIdentityProvider,
} from '../../scripts/demo-saml-identity-provider.js';
import { makeSigningCredential } from '../../scripts/saml/signing-credential.js';
import { freePort } from '../../scripts/free-port.js';
import { exitOf, spawnEntryPoint, type SpawnedProcess } from '../support/run-main.js';
import { launchChromium } from './support/chromium.js';
import { claimRows } from './support/claim-rows.js';
import { startDemoStack, type DemoStack } from './support/demo-stack.js';
import { PageWatch } from './support/page-watch.js';
import { TlsProxy } from './support/tls-proxy.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/e2e/', import.meta.url));
const SAML_DISPLAY_NAME = 'the demo SAML identity provider';

interface AcsPost {
  /** The page that sent it: the identity provider's, or Gatehouse's own continue page. */
  from: string;
  cookie: string;
}

/** Records every POST to the ACS with the page it came from and the cookies it carried. */
function watchAcsPosts(page: Page, acsUrl: string): AcsPost[] {
  const posts: AcsPost[] = [];
  page.on('request', (request) => {
    if (request.method() !== 'POST' || request.url() !== acsUrl) return;
    void request
      .allHeaders()
      .then((headers) => posts.push({ from: request.frame().url(), cookie: headers.cookie ?? '' }));
  });
  return posts;
}

/** The journey both postures share: login page, the identity provider's form, the two ACS POSTs, the starter page. */
async function signInWithSaml(
  page: Page,
  appOrigin: string,
  idpOrigin: string,
  login: 'admin' | 'user',
  oneTimeCode?: string,
) {
  const posts = watchAcsPosts(page, `${appOrigin}/Saml2/Acs`);
  await page.goto(`${appOrigin}/`);
  await page.getByRole('link', { name: `Sign in with ${SAML_DISPLAY_NAME}` }).click();
  await page.waitForURL((url) => url.href.startsWith(`${idpOrigin}/sso`));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  if (oneTimeCode !== undefined) await page.locator('input[name="otp"]').fill(oneTimeCode);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${appOrigin}/`);
  await page.getByRole('heading', { name: `Welcome, ${DEMO_USERS[login].name}` }).waitFor();
  return posts;
}

/** The two ACS POSTs: the identity provider's without our cookies, then our page's with the flow cookie. */
function expectCrossSiteThenSameSite(posts: AcsPost[], idpOrigin: string, appOrigin: string, flowCookie: string): void {
  expect(posts.map((post) => new URL(post.from).origin)).to.deep.equal([idpOrigin, appOrigin]);
  expect(posts[0]?.cookie, 'the cross-site POST carries no Lax cookie of ours').not.to.contain(flowCookie);
  expect(posts[1]?.cookie, 'the same-site re-post carries the flow cookie').to.contain(`${flowCookie}=`);
}

describe('SAML sign-in in a real browser (chromium)', function () {
  let browser: Browser;

  before(async function () {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
  });
  after(async function () {
    await browser?.close();
  });

  describe('development: http on 127.0.0.1, the identity provider on 127.0.0.2', () => {
    let stack: DemoStack;
    before(async () => {
      stack = await startDemoStack();
    });
    after(async () => {
      await stack?.close();
    });

    for (const login of ['admin', 'user'] as const) {
      it(`${login}: signs in from the login page next to OpenID Connect; the cross-site POST is re-posted from our page without inline script`, async function () {
        const context: BrowserContext = await browser.newContext();
        const page = await context.newPage();
        const watch = await PageWatch.attach(context, page, ['127.0.0.1', '127.0.0.2']);
        try {
          await page.goto(`${stack.appOrigin}/Account/Login`);
          await page.getByRole('link', { name: `Sign in with ${stack.displayName}` }).waitFor();
          // The admin confirms with a one-time code: the demo's administrator policy wants a
          // second factor (step-up), which the admin API below needs.
          const code = login === 'admin' ? '135790' : undefined;
          const posts = await signInWithSaml(page, stack.appOrigin, stack.saml.origin, login, code);
          expectCrossSiteThenSameSite(posts, stack.saml.origin, stack.appOrigin, 'gatehouse.sid.flow');
          const rows = await claimRows(page);
          expect(rows).to.deep.include.members([
            ['application:subject', login],
            ['application:name', DEMO_USERS[login].name],
            ['application:email', DEMO_USERS[login].email],
          ]);
          const roles = rows.filter(([type]) => type === 'application:role').map(([, value]) => value);
          const permissions = rows.filter(([type]) => type === 'application:permission').map(([, value]) => value);
          expect(roles).to.deep.equal(login === 'admin' ? ['Administrator'] : []);
          expect(permissions).to.deep.equal(login === 'admin' ? ['application.manage'] : []);
          const session = (await context.cookies(stack.appOrigin)).find((cookie) => cookie.name === 'gatehouse.sid');
          expect(session).to.include({ httpOnly: true, sameSite: 'Lax' });
          const api = await page.goto(`${stack.appOrigin}/api/app-info/admin`);
          expect(api?.status()).to.equal(login === 'admin' ? 200 : 403);
          await page.goto(`${stack.appOrigin}/`);
          await page.screenshot({ path: `${ARTIFACTS}saml-starter-${login}.png`, fullPage: true });
          const problems = watch
            .problemsOn(stack.appOrigin)
            .filter((problem) => !problem.text.includes('status of 403'));
          expect(problems, 'console errors or CSP violations on Gatehouse pages').to.deep.equal([]);
        } finally {
          await context.close();
        }
      });
    }

    it('starts from the identity provider’s portal (IdP-initiated, allowed by the demo settings): signed in, on the starter page', async function () {
      const context = await browser.newContext();
      const page = await context.newPage();
      const watch = await PageWatch.attach(context, page, ['127.0.0.1', '127.0.0.2']);
      try {
        const posts = watchAcsPosts(page, `${stack.appOrigin}/Saml2/Acs`);
        await page.goto(`${stack.saml.origin}/`);
        await page.locator('input[name="login"]').fill('admin');
        await page.locator('input[name="password"]').fill('any password');
        await page.getByRole('button', { name: 'Sign in to this application (IdP-initiated)' }).click();
        await page.waitForURL(`${stack.appOrigin}/`);
        await page.getByRole('heading', { name: `Welcome, ${DEMO_USERS.admin.name}` }).waitFor();
        expect(posts.map((post) => new URL(post.from).origin)).to.deep.equal([stack.saml.origin, stack.appOrigin]);
        expect(await claimRows(page)).to.deep.include.members([['application:subject', 'admin']]);
        expect(watch.problemsOn(stack.appOrigin), 'console errors or CSP violations on Gatehouse pages').to.deep.equal(
          [],
        );
      } finally {
        await context.close();
      }
    });

    it('single logout, IdP-initiated: signing out at the demo identity provider signs the browser out of Gatehouse', async function () {
      const context: BrowserContext = await browser.newContext();
      const page = await context.newPage();
      try {
        await signInWithSaml(page, stack.appOrigin, stack.saml.origin, 'admin');
        await page.goto(`${stack.saml.origin}/logout`);
        await page.getByRole('button', { name: 'Sign out everywhere' }).click();
        await page.getByRole('heading', { name: 'Signed out' }).waitFor();
        expect(await page.locator('body').textContent()).to.contain('signed out here and at the application');
        await page.goto(`${stack.appOrigin}/`);
        expect(page.url(), 'anonymous again: the starter page challenges to the login page').to.contain(
          '/Account/Login',
        );
      } finally {
        await context.close();
      }
    });

    it('single logout, SP-initiated: Gatehouse’s sign-out reaches the demo identity provider and comes back to the signed-out login page', async function () {
      const context: BrowserContext = await browser.newContext();
      const page = await context.newPage();
      const watch = await PageWatch.attach(context, page, ['127.0.0.1', '127.0.0.2']);
      try {
        await signInWithSaml(page, stack.appOrigin, stack.saml.origin, 'user');
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.waitForURL(`${stack.appOrigin}/Account/Login`);
        await page.getByText('You have been signed out.').waitFor();
        const idpLogout = await context.request.get(`${stack.saml.origin}/logout`);
        expect(await idpLogout.text(), 'the identity provider ended its session too').to.contain('Nobody is signed in');
        expect(watch.problemsOn(stack.appOrigin), 'CSP violations (form-action) on Gatehouse pages').to.deep.equal([]);
      } finally {
        await context.close();
      }
    });
  });

  describe('production posture: https through a TLS-terminating proxy, TrustProxy, NODE_ENV=production', () => {
    let idp: DemoSamlIdentityProvider;
    let proxy: TlsProxy;
    let app: SpawnedProcess;
    let appOrigin: string;

    before(async function () {
      this.timeout(60_000);
      const [proxyPort, appPort] = [await freePort(), await freePort()];
      appOrigin = `https://127.0.0.1:${proxyPort}`;
      const idpTls = makeSigningCredential({ commonName: '127.0.0.2', altNames: ['127.0.0.2'] });
      const proxyTls = makeSigningCredential({ commonName: '127.0.0.1', altNames: ['127.0.0.1'] });
      idp = await startDemoSamlIdentityProvider({
        tls: idpTls,
        serviceProviders: [{ entityId: `${appOrigin}/Saml2/Acs`, acsUrl: `${appOrigin}/Saml2/Acs` }],
      });
      // Gatehouse must trust the identity provider's self-signed certificate to fetch its metadata.
      const caFile = join(mkdtempSync(join(tmpdir(), 'gatehouse-e2e-')), 'idp-ca.pem');
      writeFileSync(caFile, idpTls.certificatePem);
      app = spawnEntryPoint(['--import', 'tsx', 'src/bootstrap/main.ts'], {
        NODE_ENV: 'production',
        NODE_EXTRA_CA_CERTS: caFile,
        PORT: String(appPort),
        ProjectTemplate__Logging__Level: 'warn',
        ProjectTemplate__Hosting__PublicOrigin: appOrigin,
        ProjectTemplate__Hosting__TrustProxy: 'true',
        ProjectTemplate__Authentication__Providers__Saml2__Enabled: 'true',
        ProjectTemplate__Authentication__Providers__Saml2__DisplayName: SAML_DISPLAY_NAME,
        ProjectTemplate__Authentication__Providers__Saml2__EntityId: `${appOrigin}/Saml2/Acs`,
        ProjectTemplate__Authentication__Providers__Saml2__MetadataUrl: idp.metadataUrl,
        ProjectTemplate__Authentication__ClaimsTransformation__Mappings__Saml2__permissions: 'application:permission',
      });
      proxy = await TlsProxy.start(proxyTls, { port: appPort }, proxyPort);
      const deadline = Date.now() + 20_000;
      while (
        !(await fetch(`http://127.0.0.1:${appPort}/health/live`).then(
          (r) => r.ok,
          () => false,
        ))
      ) {
        if (app.child.exitCode !== null || Date.now() > deadline)
          throw new Error(`Gatehouse did not start: ${app.output().stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    after(async () => {
      if (app?.child.exitCode === null) {
        app.child.kill('SIGTERM');
        await exitOf(app.child);
      }
      await proxy?.close();
      await idp?.close();
    });

    it('admin signs in over https: Secure __Host- cookies, the cross-site POST re-posted same-site, no errors on Gatehouse pages', async function () {
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      const page = await context.newPage();
      const watch = await PageWatch.attach(context, page, ['127.0.0.1', '127.0.0.2']);
      try {
        const posts = await signInWithSaml(page, appOrigin, new URL(idp.metadataUrl).origin, 'admin');
        expectCrossSiteThenSameSite(posts, new URL(idp.metadataUrl).origin, appOrigin, '__Host-gatehouse.sid.flow');
        const cookies = await context.cookies(appOrigin);
        expect(cookies.find((cookie) => cookie.name === '__Host-gatehouse.sid')).to.include({
          secure: true,
          httpOnly: true,
          sameSite: 'Lax',
          path: '/',
        });
        expect(await claimRows(page)).to.deep.include.members([
          ['application:subject', 'admin'],
          ['application:role', 'Administrator'],
          ['application:permission', 'application.manage'],
        ]);
        await page.screenshot({ path: `${ARTIFACTS}saml-production-starter.png`, fullPage: true });
        expect(watch.problemsOn(appOrigin), 'console errors or CSP violations on Gatehouse pages').to.deep.equal([]);
        expect(app.output().stdout + app.output().stderr).not.to.match(/"level":(50|60)/);
      } finally {
        await context.close();
      }
    });
  });
});
