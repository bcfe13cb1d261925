/**
 * The demo's DNS server (scripts/demo-dns.ts): what is published with curl to its control
 * port is answered as TXT records to a real resolver; any other name is NXDOMAIN; a page in
 * a browser cannot publish.
 */
import { expect } from 'chai';
import { Resolver } from 'node:dns/promises';
import { startDemoDns, type DemoDns } from '../../scripts/demo-dns.js';

describe("the demo's DNS server", () => {
  let dns: DemoDns;
  let resolver: Resolver;
  before(async () => {
    dns = await startDemoDns();
    resolver = new Resolver({ timeout: 2_000, tries: 1 });
    resolver.setServers([dns.address]);
  });
  after(async () => dns?.close());

  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${dns.controlUrl}/records`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
    });

  it('answers a record published to its control port, as curl -d sends it, and lists it', async () => {
    const published = await post('name=_gatehouse-challenge.Initech.test&value=gatehouse-domain-verification=abc_-1');
    expect(published.status).to.equal(201);
    expect(await resolver.resolveTxt('_gatehouse-challenge.initech.test')).to.deep.equal([
      ['gatehouse-domain-verification=abc_-1'],
    ]);
    expect(await (await fetch(`${dns.controlUrl}/records`)).json()).to.deep.equal({
      '_gatehouse-challenge.initech.test': ['gatehouse-domain-verification=abc_-1'],
    });
  });

  it('says NXDOMAIN for a name nobody published', async () => {
    const lookup = resolver.resolveTxt('_gatehouse-challenge.nobody.test');
    await lookup.then(
      () => expect.fail('answered'),
      (error: NodeJS.ErrnoException) => expect(error.code).to.equal('ENOTFOUND'),
    );
  });

  it('refuses a request a web page makes (it carries an Origin), and a name or value that is not one', async () => {
    const fromPage = await post('name=evil.test&value=x', { origin: 'http://attacker.test' });
    expect(fromPage.status).to.equal(403);
    expect((await post('name=not a name&value=x')).status).to.equal(400);
    expect((await post(`name=a.test&value=${'x'.repeat(256)}`)).status).to.equal(400);
    expect(Object.keys(await (await fetch(`${dns.controlUrl}/records`)).json())).not.to.include('evil.test');
  });
});
