import { expect } from 'chai';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { startupOutcome } from '../../support/startup-outcome.js';

const saml = 'ProjectTemplate__Authentication__Providers__Saml2__';
const key = (name: string) => `ProjectTemplate:Authentication:Providers:Saml2:${name}`;
const SENTINEL = 'SENTINELsigningkey0c4f9a';

/** The startup problems (formatted as `npm start` prints them) and every log line, for these Saml2 settings. */
const startupProblems = (env: Record<string, string>) =>
  startupOutcome({
    [`${saml}Enabled`]: 'true',
    [`${saml}EntityId`]: 'https://gatehouse.test/saml',
    [`${saml}MetadataUrl`]: 'http://127.0.0.1:9/metadata',
    ...env,
  });

describe('SAML2 signing key settings (startup validation)', function () {
  this.timeout(20_000);
  const sp = makeSigningCredential({ commonName: 'gatehouse-sp.example' });
  const other = makeSigningCredential({ commonName: 'other.example' });

  it('accepts a matching pair, or none at all', async () => {
    expect((await startupProblems({})).problems).to.deep.equal([]);
    const both = { [`${saml}SigningCertificate`]: sp.certificatePem, [`${saml}SigningKey`]: sp.privateKeyPem };
    expect((await startupProblems({ ...both, [`${saml}SingleLogout`]: 'true' })).problems).to.deep.equal([]);
    // Newlines written as \n (one environment variable on one line) are read as newlines.
    const escaped = {
      [`${saml}SigningCertificate`]: sp.certificatePem.replace(/\n/g, '\\n'),
      [`${saml}SigningKey`]: sp.privateKeyPem.replace(/\n/g, '\\n'),
    };
    expect((await startupProblems(escaped)).problems).to.deep.equal([]);
  });

  for (const [label, env, expected] of [
    ['a certificate without its key', { SigningCertificate: sp.certificatePem }, `${key('SigningKey')} is required`],
    ['a key without its certificate', { SigningKey: sp.privateKeyPem }, `${key('SigningCertificate')} is required`],
    [
      'a key that is not the certificate’s',
      { SigningCertificate: sp.certificatePem, SigningKey: other.privateKeyPem },
      `${key('SigningKey')} is not the private key of the configured certificate`,
    ],
    [
      'a certificate that does not parse',
      {
        SigningCertificate: `-----BEGIN CERTIFICATE-----\n${SENTINEL}\n-----END CERTIFICATE-----`,
        SigningKey: sp.privateKeyPem,
      },
      `${key('SigningCertificate')} is not a PEM certificate`,
    ],
    [
      'a key that does not parse',
      {
        SigningCertificate: sp.certificatePem,
        SigningKey: `-----BEGIN PRIVATE KEY-----\n${SENTINEL}\n-----END PRIVATE KEY-----`,
      },
      `${key('SigningKey')} is not an unencrypted PEM private key`,
    ],
    [
      'SingleLogout without a key',
      { SingleLogout: 'true' },
      `${key('SigningKey')} and SigningCertificate are required when SingleLogout`,
    ],
    [
      'SignAuthnRequests without a key',
      { SignAuthnRequests: 'true' },
      `${key('SigningKey')} and SigningCertificate are required when SignAuthnRequests`,
    ],
    [
      'a SingleLogoutPath that collides with the ACS',
      {
        SingleLogout: 'true',
        SigningCertificate: sp.certificatePem,
        SigningKey: sp.privateKeyPem,
        SingleLogoutPath: '/Saml2/Acs',
      },
      `${key('SingleLogoutPath')} collides with ${key('ModulePath')}`,
    ],
    [
      'a SingleLogoutPath that collides with a routed endpoint',
      {
        SingleLogout: 'true',
        SigningCertificate: sp.certificatePem,
        SigningKey: sp.privateKeyPem,
        SingleLogoutPath: '/Account/Logout',
      },
      `${key('SingleLogoutPath')} collides with a routed application endpoint`,
    ],
    [
      'a SingleLogoutPath that is not a local path',
      {
        SingleLogout: 'true',
        SigningCertificate: sp.certificatePem,
        SigningKey: sp.privateKeyPem,
        SingleLogoutPath: 'https://x.example/slo',
      },
      `${key('SingleLogoutPath')} must be a path`,
    ],
  ] as const) {
    it(`refuses ${label}, naming the key and never a value`, async () => {
      const settings = Object.fromEntries(Object.entries(env).map(([name, value]) => [`${saml}${name}`, value]));
      const { problems, logs } = await startupProblems(settings);
      expect(problems.join('\n')).to.contain(`error: ${expected}`);
      expect(problems.join('\n') + logs).not.to.contain(SENTINEL);
      expect(problems.join('\n') + logs).not.to.contain(sp.privateKeyPem.split('\n')[1]);
      expect(problems.join('\n') + logs).not.to.contain(other.privateKeyPem.split('\n')[1]);
    });
  }
});
