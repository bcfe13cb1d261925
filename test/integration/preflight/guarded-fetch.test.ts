import { expect } from 'chai';
import { FetchRefusal } from '../../../src/adapters/outbound/fetch-refusal.js';
import { guardedFetch, type GuardedFetchOptions } from '../../../src/adapters/outbound/guarded-fetch.js';
import type { Transport } from '../../../src/adapters/outbound/pinned-request.js';
import { countConnections, startSite, type ConnectionCounter } from '../../support/loopback-listeners.js';
import { loopbackIsPublic, tableLookup } from '../../support/played-network.js';

/** The refusal a fetch ended with; fails the test when it brought a document back. */
async function refusalOf(url: string, options: GuardedFetchOptions): Promise<FetchRefusal> {
  try {
    await guardedFetch(url, options);
  } catch (error) {
    if (error instanceof FetchRefusal) return error;
    throw error;
  }
  throw new Error(`${url} was fetched`);
}

/** A transport that records what it was asked and never touches the network: for addresses no test may send to. */
function recordingTransport(): Transport & { calls: string[] } {
  const calls: string[] = [];
  const transport: Transport = async (request) => {
    calls.push(request.url.href);
    throw new Error('no request may leave for this address');
  };
  return Object.assign(transport, { calls });
}

describe('guardedFetch: a fetch a connection steers reaches no address of our own', function () {
  this.timeout(20_000);

  describe('loopback in any spelling is refused before any connection, over http and https', () => {
    let v4: ConnectionCounter;
    let v6: ConnectionCounter;
    before(async () => {
      v4 = await countConnections('127.0.0.1');
      v6 = await countConnections('::1');
    });
    after(async () => {
      await v4.close();
      await v6.close();
    });

    const hosts = [
      '127.0.0.1',
      'localhost',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '2130706433',
      '0x7f.1',
      '0177.0.0.1',
      '127.1',
    ];
    for (const scheme of ['http', 'https']) {
      for (const host of hosts) {
        it(`${scheme}://${host}/`, async () => {
          const port = host === '[::1]' ? v6.port : v4.port;
          const refusal = await refusalOf(`${scheme}://${host}:${port}/metadata`, { allowPrivateNetworks: false });
          expect(refusal.kind).to.equal(scheme === 'http' ? 'address' : 'forbidden');
          expect(refusal.reason).to.not.include(String(port)).and.not.include('127.').and.not.include('::');
          expect(v4.connections + v6.connections).to.equal(0);
        });
      }
    }

    it('the counters count: the same addresses with private networks allowed are connected to', async () => {
      for (const [url, counter] of [
        [`http://127.0.0.1:${v4.port}/`, v4],
        [`http://[::1]:${v6.port}/`, v6],
      ] as const) {
        const before = counter.connections;
        const refusal = await refusalOf(url, { allowPrivateNetworks: true });
        expect(refusal.kind).to.equal('unreachable'); // the counter hangs up
        expect(counter.connections).to.equal(before + 1);
      }
    });
  });

  describe('private, link-local and cloud-metadata addresses are refused without a request', () => {
    const cases: Array<[string, string]> = [
      ['https://10.0.0.1/', 'the address is a private network address'],
      ['https://169.254.169.254/latest/meta-data/', 'the address is a cloud instance metadata address'],
      ['https://[fd00:ec2::254]/', 'the address is a cloud instance metadata address'],
      ['https://[::ffff:169.254.169.254]/', 'the address is a cloud instance metadata address'],
      ['https://[fe80::1]/', 'the address is a link-local address'],
      ['https://192.168.1.1/', 'the address is a private network address'],
      ['https://100.64.0.1/', 'the address is a carrier-grade NAT (shared) address'],
      ['https://0.0.0.0/', 'the address is an unspecified address'],
      ['https://metadata.google.internal/computeMetadata/v1/', 'the address names a cloud instance metadata service'],
    ];
    for (const [url, reason] of cases) {
      it(url, async () => {
        const transport = recordingTransport();
        const resolver = tableLookup({});
        const refusal = await refusalOf(url, { allowPrivateNetworks: false, transport, lookup: resolver.lookup });
        expect(refusal.kind).to.equal('forbidden');
        expect(refusal.reason).to.equal(reason);
        expect(transport.calls).to.deep.equal([]);
        expect(resolver.calls).to.deep.equal([]);
      });
    }

    it('a host name with one private address among public ones is refused', async () => {
      const transport = recordingTransport();
      const resolver = tableLookup({ 'mixed.example.test': [['203.0.114.7', '10.1.2.3']] });
      const refusal = await refusalOf('https://mixed.example.test/', {
        allowPrivateNetworks: false,
        transport,
        lookup: resolver.lookup,
      });
      expect(refusal.reason).to.equal('the host name resolves to a private network address');
      expect(transport.calls).to.deep.equal([]);
    });

    it('a host name resolving to the metadata address over IPv6 is refused', async () => {
      const transport = recordingTransport();
      const resolver = tableLookup({ 'imds.example.test': [['fd00:ec2::254']] });
      const refusal = await refusalOf('https://imds.example.test/', {
        allowPrivateNetworks: false,
        transport,
        lookup: resolver.lookup,
      });
      expect(refusal.reason).to.equal('the host name resolves to a cloud instance metadata address');
      expect(transport.calls).to.deep.equal([]);
    });

    it('an address with a user name or password is refused, and the password is named nowhere', async () => {
      const transport = recordingTransport();
      const refusal = await refusalOf('https://admin:SENTINEL-url-password@idp.example.test/', {
        allowPrivateNetworks: true,
        transport,
      });
      expect(refusal.reason).to.equal('the address carries a user name or password');
      expect(refusal.message).to.not.include('SENTINEL');
      expect(transport.calls).to.deep.equal([]);
    });
  });

  describe('redirects are vetted like the first address', () => {
    let redirector: Awaited<ReturnType<typeof startSite>>;
    let privateSide: ConnectionCounter;
    let target = '';
    before(async () => {
      privateSide = await countConnections('127.0.0.2');
      redirector = await startSite(
        '127.0.0.1',
        (req, res) => {
          if (req.url === '/ok') return void res.end('public document');
          if (req.url === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
          if (req.url === '/to-http')
            return void res.writeHead(302, { location: `http://idp.example.test:${redirector.port}/ok` }).end();
          res.writeHead(302, { location: target }).end();
        },
        { names: ['idp.example.test', 'other.example.test'] },
      );
    });
    after(async () => {
      await redirector.close();
      await privateSide.close();
    });

    const options = (lookup: GuardedFetchOptions['lookup']): GuardedFetchOptions => ({
      allowPrivateNetworks: false,
      addressRule: loopbackIsPublic,
      ca: redirector.ca,
      ...(lookup ? { lookup } : {}),
    });
    const resolver = () =>
      tableLookup({
        'idp.example.test': [['127.0.0.1']],
        'other.example.test': [['127.0.0.1']],
        'internal.example.test': [['127.0.0.2']],
      });

    it('a redirect to another public host is followed (the control)', async () => {
      target = `https://other.example.test:${redirector.port}/ok`;
      const fetched = await guardedFetch(
        `https://idp.example.test:${redirector.port}/start`,
        options(resolver().lookup),
      );
      expect(fetched.text).to.equal('public document');
      expect(fetched.url.href).to.equal(target);
    });

    it('a redirect to a host name that resolves to a private address is refused, and nothing connects there', async () => {
      target = `https://internal.example.test:${privateSide.port}/secret`;
      const refusal = await refusalOf(`https://idp.example.test:${redirector.port}/start`, options(resolver().lookup));
      expect(refusal.reason).to.equal('the host name resolves to a private network address');
      expect(privateSide.connections).to.equal(0);
    });

    it('a redirect to a private literal address is refused, and nothing connects there', async () => {
      target = `https://127.0.0.2:${privateSide.port}/secret`;
      const refusal = await refusalOf(`https://idp.example.test:${redirector.port}/start`, options(resolver().lookup));
      expect(refusal.reason).to.equal('the address is a private network address');
      expect(privateSide.connections).to.equal(0);
    });

    it('a redirect from https down to http is refused', async () => {
      const refusal = await refusalOf(
        `https://idp.example.test:${redirector.port}/to-http`,
        options(resolver().lookup),
      );
      expect(refusal.reason).to.equal('the address must use https');
    });

    it('more than three redirects are refused; none at all when maxRedirects is 0', async () => {
      const loop = await refusalOf(`https://idp.example.test:${redirector.port}/loop`, options(resolver().lookup));
      expect(loop.reason).to.equal('the server redirected more than 3 times');
      target = `https://other.example.test:${redirector.port}/ok`;
      const none = await refusalOf(`https://idp.example.test:${redirector.port}/start`, {
        ...options(resolver().lookup),
        maxRedirects: 0,
      });
      expect(none.reason).to.equal('the server answered 302, a redirect, and redirects are not followed');
    });
  });

  describe('DNS rebinding: the address vetted is the address connected to', () => {
    let site: Awaited<ReturnType<typeof startSite>>;
    let privateSide: ConnectionCounter;
    before(async () => {
      site = await startSite('127.0.0.1', (_req, res) => res.end('the vetted host'), {
        names: ['rebind.example.test'],
      });
      privateSide = await countConnections('127.0.0.2', site.port);
    });
    after(async () => {
      await site.close();
      await privateSide.close();
    });

    it('a resolver that answers public first and private next is asked once, and the private side sees nothing', async () => {
      const resolver = tableLookup({ 'rebind.example.test': [['127.0.0.1'], ['127.0.0.2']] });
      const fetched = await guardedFetch(`https://rebind.example.test:${site.port}/`, {
        allowPrivateNetworks: false,
        addressRule: loopbackIsPublic,
        lookup: resolver.lookup,
        ca: site.ca,
      });
      expect(fetched.text).to.equal('the vetted host');
      expect(resolver.calls).to.deep.equal(['rebind.example.test']);
      expect(privateSide.connections).to.equal(0);
      expect(site.connections).to.equal(1);
    });

    it('TLS still checks the certificate against the host name, not the pinned address', async () => {
      const resolver = tableLookup({ 'impostor.example.test': [['127.0.0.1']] });
      const refusal = await refusalOf(`https://impostor.example.test:${site.port}/`, {
        allowPrivateNetworks: false,
        addressRule: loopbackIsPublic,
        lookup: resolver.lookup,
        ca: site.ca,
      });
      expect(refusal.kind).to.equal('tls');
      expect(refusal.reason).to.equal("the server's TLS certificate was not accepted (ERR_TLS_CERT_ALTNAME_INVALID)");
    });

    it('a certificate no trusted authority issued is refused', async () => {
      const resolver = tableLookup({ 'rebind.example.test': [['127.0.0.1']] });
      const refusal = await refusalOf(`https://rebind.example.test:${site.port}/`, {
        allowPrivateNetworks: false,
        addressRule: loopbackIsPublic,
        lookup: resolver.lookup,
      });
      expect(refusal.kind).to.equal('tls');
    });
  });

  describe('bounds: time, size, status, text', () => {
    let site: Awaited<ReturnType<typeof startSite>>;
    before(async () => {
      site = await startSite('127.0.0.1', (req, res) => {
        if (req.url === '/slow') return; // accepts, never answers
        if (req.url === '/trickle') {
          res.writeHead(200);
          res.write('{');
          return; // the body never ends
        }
        if (req.url === '/large') return void res.end(Buffer.alloc(1024 * 1024 + 1, 'a'));
        if (req.url === '/large-chunked') {
          res.writeHead(200);
          for (let i = 0; i < 17; i += 1) res.write(Buffer.alloc(64 * 1024, 'a'));
          return void res.end();
        }
        if (req.url === '/binary') return void res.end(Buffer.from([0xff, 0xfe, 0x00]));
        if (req.url === '/cookie') return void res.end(JSON.stringify(req.headers));
        res.writeHead(404).end('SENTINEL-body-of-a-404');
      });
    });
    after(() => site.close());
    const local = { allowPrivateNetworks: true };

    it('a server that never answers is given up after the time limit', async () => {
      const started = Date.now();
      const refusal = await refusalOf(`http://127.0.0.1:${site.port}/slow`, { ...local, timeoutMs: 300 });
      expect(refusal.reason).to.equal('the server gave no complete answer within 0.3 s');
      expect(Date.now() - started).to.be.below(2_000);
    });

    it('a body that never ends is given up after the time limit', async () => {
      const refusal = await refusalOf(`http://127.0.0.1:${site.port}/trickle`, { ...local, timeoutMs: 300 });
      expect(refusal.kind).to.equal('timeout');
    });

    it('a body larger than 1 MiB is refused, declared or chunked', async () => {
      for (const path of ['/large', '/large-chunked']) {
        const refusal = await refusalOf(`http://127.0.0.1:${site.port}${path}`, local);
        expect(refusal.reason).to.equal('the document is larger than 1 MiB');
      }
    });

    it('another status is named, its body is not', async () => {
      const refusal = await refusalOf(`http://127.0.0.1:${site.port}/missing`, local);
      expect(refusal.reason).to.equal('the server answered 404');
      expect(refusal.message).to.not.include('SENTINEL');
    });

    it('bytes that are not UTF-8 are refused', async () => {
      const refusal = await refusalOf(`http://127.0.0.1:${site.port}/binary`, local);
      expect(refusal.kind).to.equal('not-text');
    });

    it('sends no cookie and no credentials', async () => {
      const fetched = await guardedFetch(`http://127.0.0.1:${site.port}/cookie`, local);
      const headers = JSON.parse(fetched.text) as Record<string, string>;
      expect(Object.keys(headers).sort()).to.deep.equal(['accept', 'connection', 'host', 'user-agent']);
    });
  });
});
