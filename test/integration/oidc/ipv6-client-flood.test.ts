import 'reflect-metadata';
import { expect } from 'chai';
import type { DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { freePort, startIdentityProvider, startOidcApp, TestBrowser, type OidcApp } from '../../support/oidc-app.js';

/**
 * One customer holds a whole IPv6 /64 and floods anonymous challenges from a different
 * address of it each time (behind the trusted proxy, each request's client address is the
 * one the proxy appends). The per-client limit counts the /64 as one client: the flood is
 * refused after the limit, stores almost nothing, and a sign-in someone else started
 * before it still completes.
 */
describe('pending sign-ins: an IPv6 client is its /64', function () {
  this.timeout(60_000);
  let idp: DemoIdentityProvider;
  let app: OidcApp;
  let wider: OidcApp;
  const challenge = (client: string, at: OidcApp = app) =>
    fetch(`${at.url}/External/Challenge?provider=OpenIdConnect&returnUrl=%2F`, {
      headers: { 'x-forwarded-for': client },
      redirect: 'manual',
    });

  before(async () => {
    const [port, widerPort] = [await freePort(), await freePort()];
    idp = await startIdentityProvider([`http://127.0.0.1:${port}`, `http://127.0.0.1:${widerPort}`]);
    const limits = {
      ProjectTemplate__Session__MaxPendingSignIns: '50',
      ProjectTemplate__Session__PendingSignInsPerClient: '5',
      ProjectTemplate__Hosting__TrustProxy: 'true',
    };
    app = await startOidcApp(idp.issuer, port, limits);
    wider = await startOidcApp(idp.issuer, widerPort, {
      ...limits,
      ProjectTemplate__Session__ClientIpv6PrefixLength: '48',
    });
  });
  after(async () => {
    await app?.close();
    await wider?.close();
    await idp?.close();
  });

  it("a flood from 300 addresses of one /64 is one client's: refused past its limit, evicting no one's sign-in", async () => {
    const someoneElse = new TestBrowser();
    const callback = await someoneElse.startSignIn(app.url, 'user', '/api/app-info');

    const statuses: number[] = [];
    for (let i = 0; i < 300; i += 30) {
      const batch = Array.from({ length: 30 }, (_, j) => {
        const n = i + j;
        return challenge(
          `2001:db8:42:7:${((n * 7919) % 0x10000).toString(16)}:${n.toString(16)}:beef:${(n + 1).toString(16)}`,
        );
      });
      statuses.push(...(await Promise.all(batch)).map((response) => response.status));
    }
    expect(
      statuses.filter((status) => status === 302),
      'started',
    ).to.have.length(5);
    expect(
      statuses.filter((status) => status === 429),
      'refused',
    ).to.have.length(295);
    expect((await challenge('2001:db8:42:8::1')).status, 'the next /64 is another client').to.equal(302);

    const answer = await someoneElse.get(callback.href);
    expect(answer.status, 'the sign-in started before the flood completes').to.equal(302);
    expect(answer.headers.get('location')).to.equal('/api/app-info');
  });

  it('an IPv4 client is the same client written as an IPv4-mapped IPv6 address', async () => {
    for (let i = 0; i < 5; i++) expect((await challenge('198.51.100.20')).status).to.equal(302);
    expect((await challenge('::ffff:198.51.100.20')).status).to.equal(429);
    expect((await challenge('::ffff:198.51.100.21')).status, 'its neighbour').to.equal(302);
  });

  it('counts by the prefix length the operator chose: with 48, every /64 of a /48 is one client', async () => {
    for (let i = 0; i < 5; i++) expect((await challenge(`2001:db8:99:${i}::1`, wider)).status).to.equal(302);
    expect((await challenge('2001:db8:99:ffff::1', wider)).status).to.equal(429);
    expect((await challenge('2001:db8:9a::1', wider)).status, 'the next /48').to.equal(302);
  });
});
