import { expect } from 'chai';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { isPemKeyPairProblem, readPemKeyPair } from '../../../src/adapters/pem-key-pair.js';

describe('readPemKeyPair (the SAML service provider’s PEM pairs)', () => {
  const credential = makeSigningCredential({ commonName: 'pair.example' });

  it('reads a matching pair: the certificate body as metadata carries it, and the key', () => {
    const pair = readPemKeyPair(credential.certificatePem, credential.privateKeyPem);
    expect(isPemKeyPairProblem(pair)).to.equal(false);
    if (isPemKeyPairProblem(pair)) return;
    expect(pair.certificateBody).to.equal(credential.certificateBody);
    expect(pair.privateKey.asymmetricKeyType).to.equal('rsa');
  });

  it('reads a PKCS#1 key and PEM written with \\n for newlines', () => {
    const pkcs1 = createPrivateKey(credential.privateKeyPem).export({ type: 'pkcs1', format: 'pem' }).toString();
    expect(pkcs1).to.contain('BEGIN RSA PRIVATE KEY');
    expect(isPemKeyPairProblem(readPemKeyPair(credential.certificatePem, pkcs1))).to.equal(false);
    const escaped = readPemKeyPair(
      credential.certificatePem.replace(/\n/g, '\\n'),
      credential.privateKeyPem.replace(/\n/g, '\\n'),
    );
    expect(isPemKeyPairProblem(escaped)).to.equal(false);
  });

  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
  const short = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
  const encrypted = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
    cipher: 'aes-256-cbc',
    passphrase: 'secret-passphrase',
  });
  for (const [label, certificate, key, expected] of [
    ['a certificate that is not PEM', 'not a certificate', credential.privateKeyPem, 'certificate'],
    ['a key that is not PEM', credential.certificatePem, 'not a key', 'privateKey'],
    ['an encrypted key', credential.certificatePem, encrypted.toString(), 'privateKey'],
    ['an EC key', credential.certificatePem, ec.toString(), 'privateKey'],
    ['an RSA key under 2048 bits', credential.certificatePem, short.toString(), 'privateKey'],
    ['another pair’s key', credential.certificatePem, makeSigningCredential().privateKeyPem, 'privateKey'],
  ] as const) {
    it(`refuses ${label}, quoting nothing of it`, () => {
      const problem = readPemKeyPair(certificate, key);
      expect(problem).to.include({ key: expected });
      if (key.length > 80) expect(JSON.stringify(problem)).not.to.contain(key.slice(40, 80));
    });
  }
});
