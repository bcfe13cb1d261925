import { expect } from 'chai';
import { createPublicKey } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startDemoIdentityProvider, type DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { HttpConnectionPreflight } from '../../../src/adapters/preflight/http-connection-preflight.js';
import { connectionOf, oidcSection } from '../../support/connection-declarations.js';
import {
  countConnections,
  startSite,
  type ConnectionCounter,
  type LoopbackSite,
} from '../../support/loopback-listeners.js';

const SECRET = 'SENTINEL-preflight-client-secret-7c2a';
const DAY = 24 * 60 * 60 * 1000;

function connection(authority: string, extra: Record<string, unknown> = {}) {
  return connectionOf(
    'Globex',
    oidcSection('globex', ['globex.example'], { Authority: authority, ClientSecret: SECRET, ...extra }),
  );
}

const local = new HttpConnectionPreflight({ allowPrivateNetworks: true });

/** A public signing key as a JWK, optionally with its certificate (x5c). */
function signingJwk(options: { use?: string; kid?: string; notAfter?: number; withCertificate?: boolean } = {}) {
  const credential = makeSigningCredential({
    commonName: 'keys.globex.example',
    ...(options.notAfter === undefined ? {} : { notBefore: options.notAfter - 365 * DAY, notAfter: options.notAfter }),
  });
  return {
    ...createPublicKey(credential.certificatePem).export({ format: 'jwk' }),
    kid: options.kid ?? 'key-1',
    ...(options.use === undefined ? {} : { use: options.use }),
    ...(options.withCertificate === false ? {} : { x5c: [credential.certificateBody] }),
  };
}

describe('HttpConnectionPreflight: an OpenID Connect connection', function () {
  this.timeout(20_000);

  describe('against a real oidc-provider', () => {
    let idp: DemoIdentityProvider;
    before(async () => {
      idp = await startDemoIdentityProvider({
        clients: [
          {
            clientId: 'globex-client',
            clientSecret: SECRET,
            redirectUris: ['http://127.0.0.1:1/cb'],
            postLogoutRedirectUris: [],
          },
        ],
      });
    });
    after(() => idp.close());

    it('passes: the issuer is the Authority, the keys are there and sign', async () => {
      expect(await local.check(connection(idp.issuer))).to.deep.equal([]);
    });

    it('is refused on the same provider when private networks are not allowed, naming Authority', async () => {
      const refusals = await new HttpConnectionPreflight({ allowPrivateNetworks: false }).check(connection(idp.issuer));
      expect(refusals).to.deep.equal([
        { key: 'Authority', reason: 'The OpenID discovery document could not be fetched: the address must use https.' },
      ]);
    });

    it('in Development (http accepted) is still refused on loopback, for the address and not the scheme', async () => {
      const development = new HttpConnectionPreflight({ allowPrivateNetworks: false, allowHttp: true });
      expect(await development.check(connection(idp.issuer))).to.deep.equal([
        {
          key: 'Authority',
          reason: 'The OpenID discovery document could not be fetched: the address is a loopback address.',
        },
      ]);
    });

    it('an Authority the provider does not call itself is refused, naming the issuer found', async () => {
      const elsewhere = idp.issuer.replace('127.0.0.1', 'localhost');
      const refusals = await local.check(connection(elsewhere));
      expect(refusals).to.deep.equal([
        {
          key: 'Authority',
          reason: `The OpenID discovery document names the issuer "${idp.issuer}", which is not the Authority given: they must be identical (OpenID Connect Discovery 4.3).`,
        },
      ]);
    });

    it('an Authority that is the discovery address itself is checked against the issuer before /.well-known/', async () => {
      const refusals = await local.check(connection(`${idp.issuer}/.well-known/openid-configuration`));
      expect(refusals).to.deep.equal([]);
    });
  });

  describe('against a provider that misbehaves', () => {
    let site: LoopbackSite;
    let origin = '';
    let discovery: (res: ServerResponse) => void;
    let keys: unknown;
    const standard = (res: ServerResponse) =>
      res
        .setHeader('content-type', 'application/json')
        .end(JSON.stringify({ issuer: origin, jwks_uri: `${origin}/jwks` }));
    before(async () => {
      site = await startSite('127.0.0.1', (req: IncomingMessage, res: ServerResponse) => {
        if (req.url === '/.well-known/openid-configuration') return discovery(res);
        if (req.url === '/jwks')
          return void res.setHeader('content-type', 'application/json').end(JSON.stringify(keys));
        res.writeHead(404).end();
      });
      origin = `http://127.0.0.1:${site.port}`;
    });
    beforeEach(() => {
      discovery = standard;
      keys = { keys: [signingJwk({ use: 'sig' })] };
    });
    after(() => site.close());

    const refusalsOf = async (preflight = local) => preflight.check(connection(origin));
    const reasons = async (preflight = local) => (await refusalsOf(preflight)).map((refusal) => refusal.reason);

    it('the control: a key for signatures with a valid certificate passes, with or without `use`', async () => {
      expect(await refusalsOf()).to.deep.equal([]);
      keys = { keys: [signingJwk({ withCertificate: false })] };
      expect(await refusalsOf()).to.deep.equal([]);
    });

    it('an empty key set is refused', async () => {
      keys = { keys: [] };
      expect(await refusalsOf()).to.deep.equal([
        {
          key: 'Authority',
          reason:
            'The key set at jwks_uri holds no key for signatures (an RSA, EC or OKP public key whose "use" is "sig" or absent).',
        },
      ]);
    });

    it('a key set of encryption keys and shared secrets only is refused', async () => {
      keys = { keys: [signingJwk({ use: 'enc' }), { kty: 'oct', k: 'c2VjcmV0', use: 'sig' }] };
      expect(await reasons()).to.deep.equal([
        'The key set at jwks_uri holds no key for signatures (an RSA, EC or OKP public key whose "use" is "sig" or absent).',
      ]);
    });

    it('a key set that is not one is refused', async () => {
      keys = [signingJwk()];
      expect(await reasons()).to.deep.equal([
        'The key set at jwks_uri is not a JSON Web Key Set (an object with a "keys" array).',
      ]);
    });

    it('a signing key whose certificate (x5c) expired is refused, by its kid and the date', async () => {
      const expired = Date.parse('2024-03-01T00:00:00Z');
      keys = { keys: [signingJwk({ use: 'sig', kid: 'old-2024', notAfter: expired }), signingJwk({ kid: 'new' })] };
      expect(await refusalsOf()).to.deep.equal([
        {
          key: 'Authority',
          reason:
            'The key set at jwks_uri holds signing key "old-2024", whose certificate (x5c) expired on 2024-03-01T00:00:00Z.',
        },
      ]);
    });

    it('the clock decides what has expired: a certificate valid today fails once its day has passed', async () => {
      const inTenDays = Date.now() + 10 * DAY;
      keys = { keys: [signingJwk({ notAfter: inTenDays })] };
      expect(await refusalsOf()).to.deep.equal([]);
      const later = new HttpConnectionPreflight({ allowPrivateNetworks: true, now: () => inTenDays + DAY });
      expect(await reasons(later)).to.have.length(1);
    });

    it('a certificate (x5c) that cannot be read is refused', async () => {
      keys = { keys: [{ ...signingJwk(), x5c: ['bm90IGEgY2VydGlmaWNhdGU='] }] };
      expect(await reasons()).to.deep.equal([
        'The key set at jwks_uri holds signing key "key-1", whose certificate (x5c) cannot be read.',
      ]);
    });

    it('a discovery document that is not JSON is refused', async () => {
      discovery = (res) => res.end('<html>Welcome to nginx</html>');
      expect(await refusalsOf()).to.deep.equal([
        { key: 'Authority', reason: 'The OpenID discovery document is not a JSON object.' },
      ]);
    });

    it('a discovery document without issuer or jwks_uri is refused for each', async () => {
      discovery = (res) => res.end('{}');
      expect(await reasons()).to.deep.equal([
        'The OpenID discovery document names no issuer.',
        'The OpenID discovery document names no jwks_uri (its signing keys).',
      ]);
    });

    it('a 404 is refused in words, with nothing of the body', async () => {
      discovery = (res) => res.writeHead(404).end('SENTINEL-not-found-page');
      expect(await reasons()).to.deep.equal([
        'The OpenID discovery document could not be fetched: the server answered 404.',
      ]);
    });

    it('a redirect is refused: sign-ins do not follow one either', async () => {
      discovery = (res) => res.writeHead(302, { location: `${origin}/elsewhere` }).end();
      expect(await reasons()).to.deep.equal([
        'The OpenID discovery document could not be fetched: the server answered 302, a redirect, and redirects are not followed.',
      ]);
    });

    it('a document larger than 1 MiB is refused', async () => {
      discovery = (res) => res.end(`{"issuer":"${origin}","padding":"${'x'.repeat(1024 * 1024)}"}`);
      expect(await reasons()).to.deep.equal([
        'The OpenID discovery document could not be fetched: the document is larger than 1 MiB.',
      ]);
    });

    it('a provider that does not answer in time is refused', async () => {
      discovery = () => {}; // accepts, never answers
      const quick = new HttpConnectionPreflight({ allowPrivateNetworks: true, timeoutMs: 300 });
      expect(await reasons(quick)).to.deep.equal([
        'The OpenID discovery document could not be fetched: the server gave no complete answer within 0.3 s.',
      ]);
    });

    it('an unreachable jwks_uri is refused', async () => {
      discovery = (res) => res.end(JSON.stringify({ issuer: origin, jwks_uri: `${origin}/missing-keys` }));
      expect(await reasons()).to.deep.equal(['The key set at jwks_uri could not be fetched: the server answered 404.']);
    });

    it('no refusal quotes the client secret, or a password in the Authority', async () => {
      discovery = (res) => res.writeHead(500).end(SECRET);
      const withPassword = origin.replace('http://', `http://globex:${SECRET}@`);
      const all = [
        ...(await local.check(connection(origin))),
        ...(await local.check(connection(withPassword))),
        ...(await new HttpConnectionPreflight({ allowPrivateNetworks: false }).check(connection(withPassword))),
      ];
      expect(all).to.have.length(3);
      expect(JSON.stringify(all)).to.not.include('SENTINEL');
      expect(all[1]?.reason).to.equal(
        'The OpenID discovery document could not be fetched: the address carries a user name or password.',
      );
    });
  });
  describe('over https, with private networks refused (a public host played on loopback)', () => {
    let site: LoopbackSite;
    let privateSide: ConnectionCounter;
    let jwksUri = '';
    const host = 'idp.globex.test';
    before(async () => {
      privateSide = await countConnections('127.0.0.2');
      site = await startSite(
        '127.0.0.1',
        (req, res) => {
          const origin = `https://${host}:${site.port}`;
          if (req.url === '/.well-known/openid-configuration') {
            return void res.end(JSON.stringify({ issuer: origin, jwks_uri: jwksUri }));
          }
          if (req.url === '/jwks') return void res.end(JSON.stringify({ keys: [signingJwk()] }));
          res.writeHead(404).end();
        },
        { names: [host] },
      );
    });
    after(async () => {
      await site.close();
      await privateSide.close();
    });
    const publicPreflight = () =>
      new HttpConnectionPreflight({
        allowPrivateNetworks: false,
        network: {
          ca: site.ca,
          lookup: async (name) => (name === host ? [{ address: '127.0.0.1', family: 4 }] : []),
          // 127.0.0.1 plays the internet, 127.0.0.2 the private network.
          addressRule: (address) => (address === '127.0.0.1' ? undefined : 'a private network address'),
        },
      });

    it('passes (the control)', async () => {
      jwksUri = `https://${host}:${site.port}/jwks`;
      expect(await publicPreflight().check(connection(`https://${host}:${site.port}`))).to.deep.equal([]);
    });

    it('a jwks_uri on a private address goes through the same guard: refused, and nothing connects there', async () => {
      jwksUri = `https://127.0.0.2:${privateSide.port}/jwks`;
      expect(await publicPreflight().check(connection(`https://${host}:${site.port}`))).to.deep.equal([
        {
          key: 'Authority',
          reason: 'The key set at jwks_uri could not be fetched: the address is a private network address.',
        },
      ]);
      expect(privateSide.connections).to.equal(0);
    });
  });
});
