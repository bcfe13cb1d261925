import { expect } from 'chai';
import * as client from 'openid-client';
import { addressGuardedFetch } from '../../../src/adapters/outbound/address-guarded-fetch.js';
import { FetchRefusal } from '../../../src/adapters/outbound/fetch-refusal.js';
import {
  countConnections,
  startSite,
  type ConnectionCounter,
  type LoopbackSite,
} from '../../support/loopback-listeners.js';
import { loopbackIsPublic, tableLookup } from '../../support/played-network.js';

async function refusalOf(sent: Promise<Response>): Promise<FetchRefusal> {
  const outcome = await sent.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof FetchRefusal)) throw new Error(`expected a FetchRefusal, got ${String(outcome)}`);
  return outcome;
}

/**
 * The fetch of a connection an organization declared itself: every request its adapter
 * sends (a token POST included, as openid-client sends it) is vetted and pinned as the
 * pre-flight's GETs are, so a discovery document naming a private token endpoint, or a
 * host name that resolves elsewhere later, reaches nothing of the deployment's.
 */
describe('addressGuardedFetch: the requests of a connection a customer declared reach no address of ours', function () {
  this.timeout(20_000);
  let site: LoopbackSite;
  let privateSide: ConnectionCounter;
  const received: Array<{ method: string; url: string; body: string; type: string }> = [];

  before(async () => {
    site = await startSite(
      '127.0.0.1',
      (req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          received.push({
            method: req.method ?? '',
            url: req.url ?? '',
            body,
            type: req.headers['content-type'] ?? '',
          });
          if (req.url === '/moved') return void res.writeHead(302, { location: '/token' }).end();
          if (req.url === '/large') return void res.end(Buffer.alloc(1024 * 1024 + 1, 'a'));
          if (req.url === '/empty') return void res.writeHead(204).end();
          res.writeHead(200, { 'content-type': 'application/json', 'x-seen': 'yes' });
          res.end(JSON.stringify({ access_token: 'SENTINEL-not-a-real-token', token_type: 'Bearer' }));
        });
      },
      { names: ['idp.example.test', 'rebind.example.test'] },
    );
    privateSide = await countConnections('127.0.0.2', site.port);
  });
  after(async () => {
    await site.close();
    await privateSide.close();
  });

  const fetchFor = (table: Record<string, string[][]>) => {
    const resolver = tableLookup(table);
    return {
      fetch: addressGuardedFetch({ addressRule: loopbackIsPublic, lookup: resolver.lookup, ca: site.ca }),
      resolver,
    };
  };

  it('carries a POST with its body and headers to a vetted host, and hands back the status, headers and body', async () => {
    const { fetch } = fetchFor({ 'idp.example.test': [['127.0.0.1']] });
    const answer = await fetch(`https://idp.example.test:${site.port}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'abc' }),
      redirect: 'manual',
    });
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('x-seen')).to.equal('yes');
    expect(await answer.json()).to.have.property('token_type', 'Bearer');
    expect(received.at(-1)).to.deep.include({
      method: 'POST',
      url: '/token',
      body: 'grant_type=authorization_code&code=abc',
      type: 'application/x-www-form-urlencoded',
    });
  });

  it('is what openid-client sends through: a discovery naming a private token endpoint is refused at the token request', async () => {
    const { fetch } = fetchFor({ 'idp.example.test': [['127.0.0.1']], 'internal.example.test': [['127.0.0.2']] });
    const issuer = `https://idp.example.test:${site.port}`;
    const config = new client.Configuration(
      { issuer, token_endpoint: `https://127.0.0.2:${site.port}/token` },
      'client',
      'SENTINEL-secret',
    );
    config[client.customFetch] = fetch as unknown as client.CustomFetch;
    const before = privateSide.connections;
    const thrown = await client.clientCredentialsGrant(config).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown, 'the grant failed').to.be.an('error');
    expect((thrown as Error & { cause?: unknown }).cause, 'refused by the guard').to.be.instanceOf(FetchRefusal);
    expect(privateSide.connections - before, 'connections to the private side').to.equal(0);
  });

  it('refuses a host that resolves to a private address before any connection, and http at all', async () => {
    const { fetch } = fetchFor({ 'internal.example.test': [['127.0.0.2']], 'idp.example.test': [['127.0.0.1']] });
    const before = privateSide.connections;
    expect((await refusalOf(fetch(`https://internal.example.test:${site.port}/token`))).kind).to.equal('forbidden');
    expect((await refusalOf(fetch(`https://127.0.0.2:${site.port}/token`))).kind).to.equal('forbidden');
    expect((await refusalOf(fetch(`http://idp.example.test:${site.port}/token`))).kind).to.equal('address');
    expect(privateSide.connections).to.equal(before);
  });

  it('pins the socket to the address vetted: a resolver answering private a moment later is never asked again', async () => {
    const { fetch, resolver } = fetchFor({ 'rebind.example.test': [['127.0.0.1'], ['127.0.0.2']] });
    const before = { site: site.connections, private: privateSide.connections };
    const answer = await fetch(`https://rebind.example.test:${site.port}/token`);
    expect(answer.status).to.equal(200);
    expect(resolver.calls).to.deep.equal(['rebind.example.test']);
    expect(site.connections - before.site).to.equal(1);
    expect(privateSide.connections - before.private).to.equal(0);
  });

  it('hands a redirect back unfollowed, refuses one where redirects are refused, and bounds the answer', async () => {
    const { fetch } = fetchFor({ 'idp.example.test': [['127.0.0.1']] });
    const url = `https://idp.example.test:${site.port}`;
    const manual = await fetch(`${url}/moved`, { redirect: 'manual' });
    expect(manual.status).to.equal(302);
    expect(manual.headers.get('location')).to.equal('/token');
    expect((await refusalOf(fetch(`${url}/moved`, { redirect: 'error' }))).kind).to.equal('status');
    expect((await refusalOf(fetch(`${url}/large`))).kind).to.equal('too-large');
    expect((await fetch(`${url}/empty`)).status).to.equal(204);
  });

  describe('in Development (http accepted, the address rule still applied)', () => {
    let plain: LoopbackSite;
    before(async () => {
      plain = await startSite('127.0.0.1', (_req, res) => res.end('over http'));
    });
    after(() => plain.close());

    it('sends over http to a vetted host, and still refuses one resolving to a private address', async () => {
      const resolver = tableLookup({ 'idp.example.test': [['127.0.0.1']], 'internal.example.test': [['127.0.0.2']] });
      const fetch = addressGuardedFetch({ allowHttp: true, addressRule: loopbackIsPublic, lookup: resolver.lookup });
      expect(await (await fetch(`http://idp.example.test:${plain.port}/`)).text()).to.equal('over http');
      const before = privateSide.connections;
      expect((await refusalOf(fetch(`http://internal.example.test:${plain.port}/`))).kind).to.equal('forbidden');
      expect(privateSide.connections).to.equal(before);
    });
  });
});
