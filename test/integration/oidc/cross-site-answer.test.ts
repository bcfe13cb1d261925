import { expect } from 'chai';
import { continuationOf, crossSitePost } from '../../support/deliver-answer.js';
import type { HarnessRun } from '../../support/identity-provider-harness.js';
import { TestBrowser } from '../../support/oidc-app.js';
import { oidcHarness } from '../../support/oidc-harness.js';

/**
 * An answer POSTed from the provider's site (here OpenID Connect's form_post; a SAML
 * response the same way) arrives without the app's SameSite=Lax cookies. The app binds it
 * to the browser by posting it again from its own page.
 */
describe('an answer POSTed cross-site (form_post against oidc-provider)', function () {
  this.timeout(20_000);
  let run: HarnessRun;
  before(async () => {
    run = await oidcHarness('form_post').start();
  });
  after(() => run.close());

  const startSignIn = async (browser: TestBrowser) => {
    const challenge = await browser.get(`${run.app.url}/External/Challenge?provider=OpenIdConnect&returnUrl=%2Fdone`);
    return run.answer(challenge.headers.get('location') ?? '');
  };

  it('is answered with a page that posts it again from this site, reading, storing and using up nothing', async () => {
    const browser = new TestBrowser();
    const answer = await startSignIn(browser);
    const redeemedBefore = await run.redeemed();
    const first = await crossSitePost(answer);
    expect(first.status).to.equal(200);
    expect(first.headers.getSetCookie(), 'no cookie').to.deep.equal([]);
    expect(first.headers.get('cache-control')).to.equal('no-store');
    expect(first.headers.get('referrer-policy')).to.equal('no-referrer');
    const csp = first.headers.get('content-security-policy') ?? '';
    expect(csp).to.contain("script-src 'self'").and.not.contain('unsafe-inline');
    const page = await first.text();
    expect([...page.matchAll(/<script[^>]*>/g)].map((m) => m[0])).to.deep.equal([
      '<script src="/continue-sign-in.js">',
    ]);
    const { action, fields } = continuationOf(page, run.app.url);
    expect(action).to.equal(answer.url);
    expect(fields).to.deep.equal({ ...answer.form, gatehouse_resent: '1' });
    expect(await run.redeemed(), 'nothing redeemed yet').to.equal(redeemedBefore);

    // The browser posts it again from this site's page: now the cookies travel.
    const second = await browser.post(action, fields, { origin: run.app.url, 'sec-fetch-site': 'same-origin' });
    expect(second.status).to.equal(302);
    expect(second.headers.get('location')).to.equal('/done');
    expect(browser.sessionToken(run.app.url)).to.have.length(43);
  });

  it('is refused (idp.flow_missing) when the browser does not send the cookies even from this site', async () => {
    const answer = await startSignIn(new TestBrowser());
    const { action, fields } = continuationOf(await (await crossSitePost(answer)).text(), run.app.url);
    const cookiesBlocked = await fetch(action, {
      method: 'POST',
      body: new URLSearchParams(fields),
      redirect: 'manual',
    });
    expect(cookiesBlocked.status).to.equal(400);
    expect(await cookiesBlocked.text()).to.contain('<code>idp.flow_missing</code>');
    expect(cookiesBlocked.headers.getSetCookie()).to.deep.equal([]);
  });

  it('serves the script the continuation page needs as a static file', async () => {
    const script = await fetch(`${run.app.url}/continue-sign-in.js`);
    expect(script.status).to.equal(200);
    expect(script.headers.get('content-type')).to.match(/javascript/);
    expect(await script.text()).to.contain("getElementById('continue-sign-in')");
  });
});
