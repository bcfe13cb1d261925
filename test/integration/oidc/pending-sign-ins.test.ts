import 'reflect-metadata';
import { expect } from 'chai';
import { FlowRecords } from '../../../src/application/sign-in/flow-records.js';
import type { DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { freePort, startIdentityProvider, startOidcApp, TestBrowser, type OidcApp } from '../../support/oidc-app.js';
import { adminClaims, signIn } from '../../support/sign-in.js';

/** Anonymous challenges against the memory store: what a flood of them can and cannot do. */
describe('pending sign-ins: bounded apart from signed-in users, and limited per client', function () {
  this.timeout(30_000);
  let idp: DemoIdentityProvider;
  let app: OidcApp;
  const challenge = (headers: Record<string, string> = {}, returnUrl = '/') =>
    fetch(`${app.url}/External/Challenge?provider=OpenIdConnect&returnUrl=${encodeURIComponent(returnUrl)}`, {
      headers,
      redirect: 'manual',
    });

  before(async () => {
    const port = await freePort();
    idp = await startIdentityProvider([`http://127.0.0.1:${port}`]);
    app = await startOidcApp(idp.issuer, port, {
      ProjectTemplate__Session__MaxSessions: '20',
      ProjectTemplate__Session__MaxPendingSignIns: '50',
      ProjectTemplate__Session__PendingSignInsPerClient: '5',
      // The limit is per client address; behind the trusted proxy, each flood request comes from its own.
      ProjectTemplate__Hosting__TrustProxy: 'true',
      // The flood test finds each flow by the state in the authorization URL: not pushed
      // (RFC 9126), where it stays at the provider. Pushed requests: pushed-authorization.test.ts.
      ProjectTemplate__Authentication__Providers__OpenIdConnect__UsePushedAuthorization: 'false',
    });
  });
  after(async () => {
    await app.close();
    await idp.close();
  });

  it('a flood of anonymous challenges stores no session and never evicts a signed-in user', async () => {
    const signedIn = await signIn(app.gatehouse, adminClaims);
    const asUser = () => fetch(`${app.url}/api/app-info`, { headers: { cookie: signedIn.cookie } });
    expect((await asUser()).status).to.equal(200);
    const returnUrl = `/${'a'.repeat(12 * 1024)}`;
    const states: string[] = [];
    for (let i = 0; i < 400; i++) {
      const response = await challenge(
        { 'x-forwarded-for': `198.51.100.${i % 250}, 10.0.${i >> 8}.${i & 255}` },
        returnUrl,
      );
      expect(response.status).to.equal(302);
      expect(response.headers.getSetCookie().join(';')).not.to.contain('gatehouse.sid=');
      states.push(new URL(response.headers.get('location') ?? '').searchParams.get('state') ?? '');
    }
    expect((await asUser()).status, 'still signed in').to.equal(200);
    // The flows still pending, looked up as a callback would look them up.
    const flows = new FlowRecords(app.gatehouse.stores.pendingSignIns);
    const pending: number[] = [];
    for (const [i, state] of states.entries()) if ((await flows.find(state)) !== undefined) pending.push(i);
    expect(pending.length, 'pending sign-ins stay within MaxPendingSignIns').to.be.within(1, 50);
    expect(pending.at(-1), 'the newest is kept, the oldest evicted').to.equal(399);
  });

  it('refuses the sign-ins of one client past its limit with 429 and Retry-After, whatever it puts first in X-Forwarded-For', async () => {
    const client = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < 5; i++) expect((await challenge(client)).status).to.equal(302);
    const spoofed = await challenge({ 'x-forwarded-for': '192.0.2.99, 203.0.113.7', accept: 'text/html' });
    expect(spoofed.status).to.equal(429);
    const retryAfter = Number(spoofed.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 15 * 60);
    expect(spoofed.headers.get('location')).to.equal(null);
    expect(spoofed.headers.getSetCookie()).to.deep.equal([]);
    expect(await spoofed.text()).to.contain('<code>auth.too_many_sign_ins</code>');
    const api = await challenge({ 'x-forwarded-for': '203.0.113.7', accept: 'application/json' });
    expect(await api.json()).to.include({ status: 429, code: 'auth.too_many_sign_ins' });
    expect((await challenge({ 'x-forwarded-for': '203.0.113.8' })).status, 'another client').to.equal(302);
  });

  it('continues with / after sign-in when the return URL is longer than 2 KiB', async () => {
    const browser = new TestBrowser();
    const long = `/reports?filter=${'x'.repeat(2100)}`;
    const response = await browser.signIn(app.url, 'user', long);
    expect(response.headers.get('location')).to.equal('/');
    const fine = await new TestBrowser().signIn(app.url, 'user', '/reports?filter=x');
    expect(fine.headers.get('location')).to.equal('/reports?filter=x');
  });
});
