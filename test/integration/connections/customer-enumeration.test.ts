import { expect } from 'chai';
import { samlConnection, startWithConnections } from '../../support/connection-app.js';
import { freePort, TestBrowser } from '../../support/oidc-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';
import { adminClaims, plainClaims, signIn } from '../../support/sign-in.js';
import type { RunningGatehouse } from '../../support/start-gatehouse.js';

/**
 * Which e-mail domains have a connection here is the list of customers. A visitor tries
 * to read it: by probing domains at the discovery form, and by asking readiness, which
 * knows every connection. Behind the trusted proxy, each request's client address is the
 * one the proxy appends to X-Forwarded-For.
 */
describe('connections: the customer list is not readable by anonymous visitors', function () {
  this.timeout(30_000);
  let app: RunningGatehouse;
  let acme: SamlTestIdentityProvider;

  before(async () => {
    acme = await SamlTestIdentityProvider.start();
    app = await startWithConnections(
      await freePort(),
      { Acme: samlConnection('acme', ['acme.test'], acme) },
      { ProjectTemplate__Hosting__TrustProxy: 'true', ProjectTemplate__Session__PendingSignInsPerClient: '5' },
    );
  });
  after(async () => {
    await app?.close();
    await acme?.close();
  });

  /** The discovery form posted from `client`, as a script would: the page's token, then the post. */
  async function probe(client: string, email: string): Promise<Response> {
    const browser = new TestBrowser();
    const headers = { 'x-forwarded-for': client };
    const page = await browser.get(`${app.url}/Account/Login`, headers);
    const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    return browser.post(
      `${app.url}/External/Discover`,
      { _csrf: token, email, returnUrl: '/' },
      { ...headers, origin: app.url, accept: 'application/json' },
    );
  }

  it('limits domain lookups per client, and past the limit answers a customer domain as an unknown one', async () => {
    const client = '2001:db8:77:1::10';
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await probe(`2001:db8:77:1::${i + 1}`, `x@unknown-${i}.test`)).status);
    expect(
      statuses.filter((status) => status === 404),
      'lookups answered',
    ).to.have.length(5);
    expect(
      statuses.filter((status) => status === 429),
      'lookups refused',
    ).to.have.length(35);

    const customer = await probe(client, 'ada@acme.test');
    const unknown = await probe(client, 'ada@initech.test');
    expect([customer.status, unknown.status]).to.deep.equal([429, 429]);
    const bodies = [await customer.json(), await unknown.json()] as Array<Record<string, unknown>>;
    expect(bodies[0]).to.include({ status: 429, code: 'auth.too_many_sign_ins' });
    expect(bodies[0]).to.deep.equal(bodies[1]);
    expect(customer.headers.get('retry-after')).to.equal(unknown.headers.get('retry-after'));

    expect((await probe('2001:db8:77:2::1', 'ada@acme.test')).status, 'another client').to.equal(302);
  });

  it('does not count an address that is not one (400), so a typo costs nothing', async () => {
    for (let i = 0; i < 10; i++) expect((await probe('198.51.100.77', 'not an address')).status).to.equal(400);
    expect((await probe('198.51.100.77', 'ada@acme.test')).status).to.equal(302);
  });

  it("tells readiness's connection names to a caller on this host only; anyone else gets counts", async () => {
    const local = (await (await fetch(`${app.url}/health/ready`)).json()) as {
      connections?: Record<string, string>;
      connectionCounts?: Record<string, number>;
    };
    expect(Object.keys(local.connections ?? {})).to.deep.equal(['Acme']);
    expect(Object.values(local.connectionCounts ?? {}).reduce((sum, n) => sum + n, 0)).to.equal(1);

    const remote = await fetch(`${app.url}/health/ready`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(remote.status).to.equal(200);
    const text = await remote.text();
    expect(text.toLowerCase()).not.to.contain('acme');
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(body).not.to.have.property('connections');
    expect(body.connectionCounts).to.deep.equal(local.connectionCounts);
  });

  it("shows each connection's state by name to an administrator at /Admin, and to no one else there", async () => {
    const administrator = await signIn(app.gatehouse, adminClaims);
    const page = await fetch(`${app.url}/Admin`, { headers: { cookie: administrator.cookie } });
    expect(page.status).to.equal(200);
    expect(await page.text()).to.match(
      /<span class="provider-name">Acme<\/span> <span class="muted">\((idle|up|down)\)<\/span>/,
    );
    const user = await signIn(app.gatehouse, plainClaims);
    const refused = await fetch(`${app.url}/Admin`, { headers: { cookie: user.cookie } });
    expect(refused.status).to.equal(403);
    expect(await refused.text()).not.to.contain('Acme');
  });
});
