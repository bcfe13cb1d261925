import { expect } from 'chai';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { startDemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { freePort, startOidcApp, TestBrowser } from '../../support/oidc-app.js';
import { startupOutcome } from '../../support/startup-outcome.js';

const OIDC = 'ProjectTemplate__Authentication__Providers__OpenIdConnect__';
const key = (name: string) => `ProjectTemplate:Authentication:Providers:OpenIdConnect:${name}`;
const SENTINEL = 'SENTINELclientkey5b0e7d';

/** The startup problems and every log line, for these OpenIdConnect settings. */
const startup = (env: Record<string, string>) =>
  startupOutcome({
    [`${OIDC}Enabled`]: 'true',
    [`${OIDC}Authority`]: 'http://127.0.0.1:9',
    [`${OIDC}ClientId`]: 'gatehouse-test',
    ...env,
  });

/** The base64 lines of a PEM's body: any of them in an output means the key leaked. */
const bodyLines = (pem: string) => pem.split('\n').filter((line) => line !== '' && !line.startsWith('-----'));

describe('OpenID Connect client authentication settings (startup validation)', function () {
  this.timeout(20_000);
  const client = makeSigningCredential({ commonName: 'gatehouse-client.example' });
  const other = makeSigningCredential({ commonName: 'other.example' });
  const ecJwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const smallRsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
  const ed25519 = generateKeyPairSync('ed25519').privateKey;
  const pkjwt = { ClientAuthentication: 'private_key_jwt' };

  it('accepts a secret method with a secret, and private_key_jwt with a PEM key (and its certificate) or a JWK, without a secret', async () => {
    for (const env of [
      { ClientSecret: 'a secret' },
      { ClientAuthentication: 'client_secret_post', ClientSecret: 'a secret' },
      { ...pkjwt, ClientKey: client.privateKeyPem },
      { ...pkjwt, ClientKey: client.privateKeyPem, ClientCertificate: client.certificatePem },
      // One environment variable on one line: newlines written as \n.
      { ...pkjwt, ClientKey: client.privateKeyPem.replace(/\n/g, '\\n') },
      { ...pkjwt, ClientKey: JSON.stringify({ ...ecJwk, kid: 'k1', alg: 'ES256' }) },
    ]) {
      const settings = Object.fromEntries(Object.entries(env).map(([name, value]) => [`${OIDC}${name}`, value]));
      expect((await startup(settings)).problems, JSON.stringify(Object.keys(env))).to.deep.equal([]);
    }
  });

  for (const [label, env, expected] of [
    ['a secret method without a secret', {}, `error: ${key('ClientSecret')} is required`],
    [
      'private_key_jwt without a key',
      pkjwt,
      `error: ${key('ClientKey')} is required when ClientAuthentication is private_key_jwt`,
    ],
    [
      'a key that does not parse',
      { ...pkjwt, ClientKey: `-----BEGIN PRIVATE KEY-----\n${SENTINEL}\n-----END PRIVATE KEY-----` },
      `error: ${key('ClientKey')} is neither an unencrypted PEM private key`,
    ],
    [
      'JSON that is not a private JWK (a public one)',
      {
        ...pkjwt,
        ClientKey: JSON.stringify({
          ...createPublicKey(client.privateKeyPem).export({ format: 'jwk' }),
          kid: SENTINEL,
        }),
      },
      `error: ${key('ClientKey')} is JSON but not a private JWK`,
    ],
    [
      'text that is not JSON',
      { ...pkjwt, ClientKey: `{${SENTINEL}` },
      `error: ${key('ClientKey')} starts like JSON but is not valid JSON`,
    ],
    [
      'an RSA key under 2048 bits',
      { ...pkjwt, ClientKey: smallRsa.export({ type: 'pkcs8', format: 'pem' }).toString() },
      `error: ${key('ClientKey')} must be an RSA key of at least 2048 bits, or an EC key`,
    ],
    [
      'a key of another type (Ed25519)',
      { ...pkjwt, ClientKey: ed25519.export({ type: 'pkcs8', format: 'pem' }).toString() },
      `error: ${key('ClientKey')} must be an RSA key of at least 2048 bits, or an EC key`,
    ],
    [
      'a JWK whose alg is not what its key signs with',
      { ...pkjwt, ClientKey: JSON.stringify({ ...ecJwk, alg: 'RS256' }) },
      `error: ${key('ClientKey')} is a JWK whose "alg" is not ES256`,
    ],
    [
      'a key that is not the certificate’s',
      { ...pkjwt, ClientKey: other.privateKeyPem, ClientCertificate: client.certificatePem },
      `error: ${key('ClientKey')} is not the private key of ClientCertificate`,
    ],
    [
      'a certificate that does not parse',
      {
        ...pkjwt,
        ClientKey: client.privateKeyPem,
        ClientCertificate: `-----BEGIN CERTIFICATE-----\n${SENTINEL}\n-----END CERTIFICATE-----`,
      },
      `error: ${key('ClientCertificate')} is not a PEM certificate`,
    ],
    [
      'a secret left with private_key_jwt (a warning)',
      { ...pkjwt, ClientKey: client.privateKeyPem, ClientSecret: SENTINEL },
      `warning: ${key('ClientSecret')} is set but not used with private_key_jwt`,
    ],
    [
      'a key left with a secret method (a warning)',
      { ClientSecret: 'a secret', ClientKey: client.privateKeyPem },
      `warning: ${key('ClientKey')} is set but not used: ClientAuthentication is client_secret_basic`,
    ],
    [
      'ClientAssertionAudience with a secret method (a warning)',
      { ClientSecret: 'a secret', ClientAssertionAudience: 'token_endpoint' },
      `warning: ${key('ClientAssertionAudience')} is used by private_key_jwt only`,
    ],
    [
      'an unknown method',
      { ClientAuthentication: 'client_secret_jwt', ClientSecret: 'a secret' },
      `error: ${key('ClientAuthentication')}`,
    ],
  ] as const) {
    it(`refuses ${label}, naming the key and never a value`, async () => {
      const settings = Object.fromEntries(Object.entries(env).map(([name, value]) => [`${OIDC}${name}`, value]));
      const { problems, logs } = await startup(settings);
      const output = problems.join('\n') + logs;
      expect(output).to.contain(expected);
      expect(output).not.to.contain(SENTINEL);
      for (const line of [...bodyLines(client.privateKeyPem), ...bodyLines(other.privateKeyPem)])
        expect(output, 'a line of a private key').not.to.contain(line);
      expect(output).not.to.contain(String(ecJwk.d));
    });
  }
});

describe('OpenID Connect ClientKey is a secret (sentinel in logs and pages)', function () {
  this.timeout(30_000);

  it('never reaches a log line or a page, through a sign-in and a refusal, at debug level', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = { ...privateKey.export({ format: 'jwk' }), kid: SENTINEL };
    const port = await freePort();
    const idp = await startDemoIdentityProvider({
      clients: [
        {
          clientId: 'gatehouse-test',
          clientSecret: 'unused',
          redirectUris: [`http://127.0.0.1:${port}/signin-oidc`],
          postLogoutRedirectUris: [`http://127.0.0.1:${port}/`],
          tokenEndpointAuthMethod: 'private_key_jwt',
          jwks: { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: SENTINEL }] },
        },
      ],
    });
    const app = await startOidcApp(idp.issuer, port, {
      ProjectTemplate__Logging__Level: 'debug',
      [`${OIDC}ClientAuthentication`]: 'private_key_jwt',
      [`${OIDC}ClientSecret`]: '',
      [`${OIDC}ClientKey`]: JSON.stringify(jwk),
    });
    try {
      const browser = new TestBrowser();
      const answer = await browser.signIn(app.url, 'admin');
      expect(answer.status).to.equal(302);
      const pages = [await (await browser.get(`${app.url}/`)).text()];
      // A refused answer (a replayed callback) goes through the error page and the log.
      const callback = await new TestBrowser().startSignIn(app.url, 'user');
      const replay = await browser.get(callback.href, { accept: 'text/html' });
      expect(replay.status).to.equal(400);
      pages.push(await replay.text());
      const output = app.logs.join('\n') + pages.join('\n');
      expect(output, 'the private part of the key').not.to.contain(String(jwk.d));
      expect(output, 'the ClientKey setting').not.to.contain(JSON.stringify(jwk).slice(0, 40));
    } finally {
      await app.close();
      await idp.close();
    }
  });
});
