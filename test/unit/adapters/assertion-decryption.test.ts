import { expect } from 'chai';
import { encryptAssertion } from '../../../scripts/saml/assertion-encryption.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { decryptAssertion } from '../../../src/adapters/saml/assertion-decryption.js';
import { readPemPrivateKey } from '../../../src/adapters/pem-key-pair.js';
import { parseSamlXml } from '../../../src/adapters/saml/saml-xml.js';
import { isGatehouseError } from '../../../src/domain/errors.js';

const pair = makeSigningCredential({ commonName: 'sp-encryption' });
const other = makeSigningCredential({ commonName: 'sp-encryption-other' });
const keyOf = (pem: string) => readPemPrivateKey(pem) ?? expect.fail('unreadable key');
const ASSERTION = '<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_a">é</saml:Assertion>';

function decrypt(xml: string, keys = [keyOf(pair.privateKeyPem)]) {
  return decryptAssertion(parseSamlXml(xml).documentElement, keys);
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return isGatehouseError(error) ? error.code : 'not a GatehouseError';
  }
  return 'no error';
}

describe('decryptAssertion: XML Encryption with node:crypto', () => {
  it('decrypts what an independent writer encrypted, with either configured key, the EncryptedKey inline or beside', () => {
    const encrypted = encryptAssertion(ASSERTION, { certificatePem: pair.certificatePem, keyPlacement: 'sibling' });
    expect(decrypt(encrypted)).to.deep.equal({ xml: ASSERTION, failure: undefined });
    expect(decrypt(encrypted, [keyOf(other.privateKeyPem), keyOf(pair.privateKeyPem)]).xml).to.equal(ASSERTION);
  });

  it('reads the algorithms before decrypting: unknown or missing ones are refused, whatever the key', () => {
    const encrypted = encryptAssertion(ASSERTION, { certificatePem: pair.certificatePem });
    const cases: Array<[string, string]> = [
      ['AES-192-CBC', encrypted.replace('xmlenc11#aes256-gcm', 'xmlenc#aes192-cbc')],
      ['no content EncryptionMethod', encrypted.replace(/<xenc:EncryptionMethod Algorithm="[^"]*aes256-gcm"\/>/, '')],
      ['an OAEP digest unlike its mask', encrypted.replace('xmldsig#sha1', 'xmlenc#sha256')],
      [
        'RSA-OAEP named by xmlenc11 with an MGF1-SHA256 mask over SHA-1',
        encryptAssertion(ASSERTION, { certificatePem: pair.certificatePem, keyTransport: 'oaep-sha256' }).replace(
          'xmlenc#sha256',
          'xmldsig#sha1',
        ),
      ],
    ];
    for (const [label, xml] of cases) {
      expect(
        codeOf(() => decrypt(xml, [keyOf(other.privateKeyPem)])),
        label,
      ).to.equal('idp.encryption_algorithm_refused');
    }
  });

  it('refuses shapes it does not read: content-typed data, more than four EncryptedKeys, none', () => {
    const encrypted = encryptAssertion(ASSERTION, { certificatePem: pair.certificatePem, keyPlacement: 'sibling' });
    const key = /<xenc:EncryptedKey[\s\S]*<\/xenc:EncryptedKey>/.exec(encrypted)?.[0] ?? '';
    const cases: Array<[string, string]> = [
      ['Type Content', encrypted.replace('xmlenc#Element', 'xmlenc#Content')],
      ['five EncryptedKeys', encrypted.replace(key, key.repeat(5))],
      ['no EncryptedKey', encrypted.replace(key, '')],
    ];
    for (const [label, xml] of cases)
      expect(
        codeOf(() => decrypt(xml)),
        label,
      ).to.equal('idp.assertion_invalid');
  });

  it('a bad CBC padding is returned with its failure, not thrown: the caller parses it before refusing', () => {
    const zero = Buffer.alloc(32, 0x20);
    zero[31] = 0;
    const encrypted = encryptAssertion(ASSERTION, {
      certificatePem: pair.certificatePem,
      content: 'aes128-cbc',
      plaintextOf: () => zero,
      rawPlaintext: true,
    });
    expect(decrypt(encrypted).failure).to.equal('content');
  });
});
