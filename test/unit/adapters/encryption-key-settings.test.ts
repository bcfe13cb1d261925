import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { checkSettings } from '../../../src/domain/settings/check-settings.js';
import { defaultSettings } from '../../../src/domain/settings/default-settings.js';
import { sectionsOf, type BuiltInSections } from '../../support/provider-sections.js';

const KEY = 'ProjectTemplate:Authentication:Providers:Saml2';
const SENTINEL = 'SENTINELencryptionkey4c1d';
const first = makeSigningCredential({ commonName: 'sp-encryption-1' });
const second = makeSigningCredential({ commonName: 'sp-encryption-2' });

/** The Saml2 problems of an enabled Saml2 section with these encryption settings. */
function problemsWith(change: Partial<BuiltInSections['Saml2']>) {
  const settings = defaultSettings(builtInProviders);
  Object.assign(sectionsOf(settings).Saml2, {
    Enabled: true,
    EntityId: 'https://app.example/saml',
    MetadataUrl: 'https://idp.example/metadata',
    ...change,
  });
  return checkSettings(settings, {
    environment: 'production',
    unknownKeys: [],
    providers: builtInProviders,
    isRoutedPath: () => false,
  }).filter((problem) => problem.key.startsWith(KEY));
}

const keysOf = (problems: ReturnType<typeof problemsWith>) => problems.map((problem) => problem.key);

describe('Saml2 encryption keys: startup rules', () => {
  it('accepts none, one pair, or two pairs', () => {
    expect(problemsWith({})).to.deep.equal([]);
    expect(
      problemsWith({ EncryptionCertificate: first.certificatePem, EncryptionKey: first.privateKeyPem }),
    ).to.deep.equal([]);
    expect(
      problemsWith({
        EncryptionCertificate: first.certificatePem,
        EncryptionKey: first.privateKeyPem,
        EncryptionCertificate2: second.certificatePem,
        EncryptionKey2: second.privateKeyPem,
        RequireEncryptedAssertions: true,
      }),
    ).to.deep.equal([]);
  });

  it('reads PEM whose line breaks are written as \\n (one-line environment variables)', () => {
    const oneLine = (pem: string) => pem.trim().split('\n').join('\\n');
    expect(
      problemsWith({
        EncryptionCertificate: oneLine(first.certificatePem),
        EncryptionKey: oneLine(first.privateKeyPem),
      }),
    ).to.deep.equal([]);
  });

  it('a pair is both or neither', () => {
    expect(keysOf(problemsWith({ EncryptionCertificate: first.certificatePem }))).to.deep.equal([
      `${KEY}:EncryptionKey`,
    ]);
    expect(keysOf(problemsWith({ EncryptionKey2: first.privateKeyPem }))).to.deep.equal([
      `${KEY}:EncryptionCertificate2`,
    ]);
  });

  it('the second pair needs the first', () => {
    const problems = problemsWith({
      EncryptionCertificate2: second.certificatePem,
      EncryptionKey2: second.privateKeyPem,
    });
    expect(keysOf(problems)).to.deep.equal([`${KEY}:EncryptionCertificate2`]);
  });

  it('RequireEncryptedAssertions without a key is a startup error', () => {
    const problems = problemsWith({ RequireEncryptedAssertions: true });
    expect(keysOf(problems)).to.deep.equal([`${KEY}:RequireEncryptedAssertions`]);
    expect(problems[0]?.severity).to.equal('error');
  });

  it('refuses a certificate or key that does not parse, a key of another certificate, a short or non-RSA key', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    const short = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    const cases: Array<[string, Partial<BuiltInSections['Saml2']>, string, string]> = [
      [
        'a broken certificate',
        { EncryptionCertificate: 'not a certificate', EncryptionKey: first.privateKeyPem },
        'EncryptionCertificate',
        'is not a PEM certificate',
      ],
      [
        'a broken key',
        { EncryptionCertificate: first.certificatePem, EncryptionKey: 'not a key' },
        'EncryptionKey',
        'is not an unencrypted PEM private key',
      ],
      [
        'another certificate’s key',
        { EncryptionCertificate: first.certificatePem, EncryptionKey: second.privateKeyPem },
        'EncryptionKey',
        'is not the private key of the configured certificate',
      ],
      [
        'a mismatched second pair',
        {
          EncryptionCertificate: first.certificatePem,
          EncryptionKey: first.privateKeyPem,
          EncryptionCertificate2: second.certificatePem,
          EncryptionKey2: first.privateKeyPem,
        },
        'EncryptionKey2',
        'is not the private key of the configured certificate',
      ],
    ];
    for (const [label, change, key, message] of cases) {
      const problems = problemsWith(change);
      expect(keysOf(problems), label).to.deep.equal([`${KEY}:${key}`]);
      expect(problems[0]?.message, label).to.contain(message);
    }
    for (const [label, pem, message] of [
      ['EC', ec, 'must be an RSA key of at least 2048 bits'],
      ['1024-bit RSA', short, 'of at least 2048 bits'],
    ] as const) {
      const problems = problemsWith({ EncryptionCertificate: first.certificatePem, EncryptionKey: pem.toString() });
      expect(keysOf(problems), label).to.deep.equal([`${KEY}:EncryptionKey`]);
      expect(problems[0]?.message, label).to.contain(message);
    }
  });

  it('no message quotes the key, even a broken one', () => {
    const broken = `-----BEGIN PRIVATE KEY-----\n${SENTINEL}\n-----END PRIVATE KEY-----`;
    const problems = problemsWith({ EncryptionCertificate: first.certificatePem, EncryptionKey: broken });
    expect(keysOf(problems)).to.deep.equal([`${KEY}:EncryptionKey`]);
    expect(JSON.stringify(problems)).not.to.contain(SENTINEL);
    const mismatched = problemsWith({
      EncryptionCertificate: first.certificatePem,
      EncryptionKey: second.privateKeyPem,
    });
    const secretLine = second.privateKeyPem.split('\n')[5] ?? '';
    expect(JSON.stringify(mismatched)).not.to.contain(secretLine);
  });
});
