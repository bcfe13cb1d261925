import { expect } from 'chai';
import { createHash, createPublicKey, generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import {
  startDemoIdentityProvider,
  type DemoClient,
  type DemoIdentityProvider,
  type DemoIdentityProviderOptions,
} from '../../../scripts/demo-identity-provider.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { freePort, startOidcApp, TestBrowser, type OidcApp } from '../../support/oidc-app.js';

const OIDC = 'ProjectTemplate__Authentication__Providers__OpenIdConnect__';
/**
 * A secret with every character RFC 6749 2.3.1's form-encoding changes in a way a provider
 * notices: `-_.~` (which LemonLDAP::NG compares encoded), and `+`, `%`, `:` (which a
 * provider that decodes, as oidc-provider does, reads wrongly unless they were encoded).
 */
const AWKWARD_SECRET = 'SENTINEL-awkward_secret.with~plus+percent%25colon:end';

interface Pair {
  idp: DemoIdentityProvider;
  app: OidcApp;
  close(): Promise<void>;
}

/** oidc-provider with one client registered as `client` says, and Gatehouse configured with `env` against it. */
async function startPair(
  client: Partial<DemoClient>,
  env: Record<string, string>,
  provider: Partial<DemoIdentityProviderOptions> = {},
): Promise<Pair> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const idp = await startDemoIdentityProvider({
    clients: [
      {
        clientId: 'gatehouse-test',
        clientSecret: AWKWARD_SECRET,
        redirectUris: [`${origin}/signin-oidc`],
        postLogoutRedirectUris: [`${origin}/`],
        ...client,
      },
    ],
    ...provider,
  });
  const app = await startOidcApp(idp.issuer, port, { [`${OIDC}ClientSecret`]: AWKWARD_SECRET, ...env });
  return {
    idp,
    app,
    close: async () => {
      await app.close();
      await idp.close();
    },
  };
}

async function signsIn(app: OidcApp): Promise<void> {
  const browser = new TestBrowser();
  const answer = await browser.signIn(app.url, 'admin');
  expect(answer.status, 'the callback').to.equal(302);
  expect(answer.headers.get('location')).to.equal('/');
  const info = await browser.get(`${app.url}/api/app-info`, { accept: 'application/json' });
  expect(info.status, 'signed in').to.equal(200);
}

const thumbprint = (pem: string, algorithm: 'sha1' | 'sha256') =>
  createHash(algorithm).update(new X509Certificate(pem).raw).digest('base64url');

describe('OpenID Connect client authentication methods (real oidc-provider)', function () {
  this.timeout(30_000);
  let pair: Pair | undefined;
  afterEach(async () => {
    await pair?.close();
    pair = undefined;
  });

  it('client_secret_basic (the default): the ID and secret form-encoded first (RFC 6749 2.3.1), a secret of -_.~+%: included', async () => {
    pair = await startPair({ tokenEndpointAuthMethod: 'client_secret_basic' }, {});
    await signsIn(pair.app);
    expect(pair.idp.tokenRequests).to.equal(1);
    expect(pair.idp.basicAuthentications, 'the push and the redemption, each with HTTP Basic').to.equal(2);
  });

  it('client_secret_post: the ID and secret as form fields, the same secret', async () => {
    pair = await startPair(
      { tokenEndpointAuthMethod: 'client_secret_post' },
      { [`${OIDC}ClientAuthentication`]: 'client_secret_post' },
    );
    await signsIn(pair.app);
    expect(pair.idp.tokenRequests).to.equal(1);
    expect(pair.idp.basicAuthentications, 'no HTTP Basic: the secret travels in the body').to.equal(0);
  });

  it('private_key_jwt with an RSA key and its certificate (PEM), no ClientSecret: RS256, x5t and x5t#S256 in the header, aud the issuer', async () => {
    const credential = makeSigningCredential({ commonName: 'gatehouse-client.example' });
    const publicJwk = createPublicKey(credential.privateKeyPem).export({ format: 'jwk' });
    pair = await startPair(
      { tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [{ ...publicJwk, use: 'sig' }] } },
      {
        [`${OIDC}ClientAuthentication`]: 'private_key_jwt',
        [`${OIDC}ClientSecret`]: '',
        [`${OIDC}ClientKey`]: credential.privateKeyPem,
        [`${OIDC}ClientCertificate`]: credential.certificatePem,
      },
    );
    await signsIn(pair.app);
    // One assertion for the pushed authorization request, one for the code redemption.
    expect(pair.idp.clientAssertions).to.have.lengthOf(2);
    for (const { header, claims } of pair.idp.clientAssertions) {
      expect(header).to.deep.include({
        alg: 'RS256',
        x5t: thumbprint(credential.certificatePem, 'sha1'),
        'x5t#S256': thumbprint(credential.certificatePem, 'sha256'),
      });
      expect(claims).to.include({ iss: 'gatehouse-test', sub: 'gatehouse-test', aud: pair.idp.issuer });
    }
  });

  it('private_key_jwt with an EC private JWK: ES256, its kid, and aud the token endpoint when ClientAssertionAudience says so', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const kid = randomBytes(6).toString('hex');
    pair = await startPair(
      {
        tokenEndpointAuthMethod: 'private_key_jwt',
        jwks: { keys: [{ ...publicKey.export({ format: 'jwk' }), kid, use: 'sig' }] },
      },
      {
        [`${OIDC}ClientAuthentication`]: 'private_key_jwt',
        [`${OIDC}ClientSecret`]: '',
        [`${OIDC}ClientKey`]: JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid }),
        [`${OIDC}ClientAssertionAudience`]: 'token_endpoint',
      },
    );
    await signsIn(pair.app);
    const redemption = pair.idp.clientAssertions.at(-1);
    expect(redemption?.header).to.include({ alg: 'ES256', kid });
    expect(redemption?.header).to.not.have.property('x5t');
    expect(redemption?.claims).to.include({ aud: `${pair.idp.issuer}/token` });
  });

  describe('a configuration the provider does not accept: a clear error at the first sign-in, logged once', () => {
    const refusals: {
      name: string;
      provider: Partial<DemoIdentityProviderOptions>;
      env: () => Record<string, string>;
      code: string;
      says: RegExp;
    }[] = [
      {
        name: 'a method the provider does not advertise',
        provider: { clientAuthMethods: ['client_secret_basic', 'private_key_jwt'] },
        env: () => ({ [`${OIDC}ClientAuthentication`]: 'client_secret_post' }),
        code: 'idp.client_authentication_unsupported',
        says: /does not accept client_secret_post at its token endpoint \(it accepts client_secret_basic, private_key_jwt\)/,
      },
      {
        name: 'a client assertion algorithm the provider does not advertise',
        provider: { clientAuthSigningAlgs: ['RS256', 'PS256'] },
        env: () => {
          const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
          return {
            [`${OIDC}ClientAuthentication`]: 'private_key_jwt',
            [`${OIDC}ClientKey`]: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
          };
        },
        code: 'idp.client_authentication_unsupported',
        says: /does not accept client assertions signed with ES384 \(it accepts RS256, PS256\)/,
      },
      {
        name: 'pushed authorization turned off while the provider requires it',
        provider: { requirePushedAuthorization: true },
        env: () => ({ [`${OIDC}UsePushedAuthorization`]: 'false' }),
        code: 'idp.pushed_authorization_required',
        says: /requires pushed authorization requests: UsePushedAuthorization must not be false/,
      },
    ];
    for (const refusal of refusals) {
      it(`${refusal.name}: 503 ${refusal.code}, nothing sent to the provider, no session`, async () => {
        pair = await startPair({}, refusal.env(), refusal.provider);
        const browser = new TestBrowser();
        for (let attempt = 0; attempt < 2; attempt++) {
          const challenge = await browser.get(`${pair.app.url}/External/Challenge?provider=OpenIdConnect`, {
            accept: 'text/html',
          });
          expect(challenge.status).to.equal(503);
          const page = await challenge.text();
          expect(page).to.contain(refusal.code);
          expect(page.replace(/&#39;|&quot;/g, '')).to.match(refusal.says);
        }
        expect(browser.sessionToken(pair.app.url)).to.equal(undefined);
        expect(pair.idp.pushedRequests + pair.idp.tokenRequests, 'calls to the provider').to.equal(0);
        const warnings = pair.app.logs.filter((line) => line.includes('refuses this configuration'));
        expect(warnings, 'logged once, with its code').to.have.lengthOf(1);
        expect(warnings[0]).to.contain(refusal.code);
      });
    }
  });
});

describe('Pushed Authorization Requests (RFC 9126, real oidc-provider)', function () {
  this.timeout(30_000);
  let pair: Pair | undefined;
  afterEach(async () => {
    await pair?.close();
    pair = undefined;
  });

  const challenge = (app: OidcApp, client = '203.0.113.1') =>
    fetch(`${app.url}/External/Challenge?provider=OpenIdConnect`, {
      redirect: 'manual',
      headers: { 'x-forwarded-for': client },
    });

  it('pushes every authorization request when the provider offers it: the browser carries a request_uri only', async () => {
    pair = await startPair({}, {});
    const answer = await challenge(pair.app);
    expect(answer.status).to.equal(302);
    const location = new URL(answer.headers.get('location') ?? '');
    expect([...location.searchParams.keys()].sort()).to.deep.equal(['client_id', 'request_uri']);
    expect(location.searchParams.get('request_uri')).to.match(/^urn:ietf:params:oauth:request_uri:/);
    expect(pair.idp.pushedRequests).to.equal(1);
    await signsIn(pair.app);
    expect(pair.idp.pushedRequests).to.equal(2);
  });

  it('signs in with a provider that requires pushed requests', async () => {
    pair = await startPair({}, {}, { requirePushedAuthorization: true });
    await signsIn(pair.app);
  });

  it('UsePushedAuthorization=false: the parameters travel in the URL, nothing is pushed', async () => {
    pair = await startPair({}, { [`${OIDC}UsePushedAuthorization`]: 'false' });
    const location = new URL((await challenge(pair.app)).headers.get('location') ?? '');
    expect(location.searchParams.get('code_challenge_method')).to.equal('S256');
    expect(location.searchParams.get('state')).to.be.a('string');
    expect(pair.idp.pushedRequests).to.equal(0);
    await signsIn(pair.app);
    expect(pair.idp.pushedRequests).to.equal(0);
  });

  it('keeps the per-client challenge limit in front of the push: past it, no request reaches the provider', async () => {
    pair = await startPair(
      {},
      { ProjectTemplate__Session__PendingSignInsPerClient: '3', ProjectTemplate__Hosting__TrustProxy: 'true' },
    );
    for (let i = 0; i < 3; i++) expect((await challenge(pair.app)).status).to.equal(302);
    expect(pair.idp.pushedRequests).to.equal(3);
    const refused = await challenge(pair.app);
    expect(refused.status).to.equal(429);
    expect(pair.idp.pushedRequests, 'no push for a refused challenge').to.equal(3);
    expect((await challenge(pair.app, '203.0.113.2')).status, 'another client').to.equal(302);
  });

  it('a push the provider refuses (a wrong secret): 502 idp.authorization_request_refused, the secret nowhere', async () => {
    pair = await startPair({}, { [`${OIDC}ClientSecret`]: 'SENTINEL-wrong-secret-4c1d' });
    const answer = await fetch(`${pair.app.url}/External/Challenge?provider=OpenIdConnect`, {
      redirect: 'manual',
      headers: { accept: 'text/html' },
    });
    expect(answer.status).to.equal(502);
    const page = await answer.text();
    expect(page).to.contain('idp.authorization_request_refused');
    const logs = pair.app.logs.join('\n');
    expect(logs).to.contain('idp.authorization_request_refused');
    for (const secret of ['SENTINEL-wrong-secret-4c1d', AWKWARD_SECRET]) {
      expect(logs, 'a secret in the log').to.not.contain(secret);
      expect(page, 'a secret on the page').to.not.contain(secret);
    }
  });
});
