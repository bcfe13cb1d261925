import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';

/** A certificate and its private key, configured as PEM text (the service provider's signing or encryption pair). */
export interface PemKeyPair {
  certificate: X509Certificate;
  /** The base64 DER body of the certificate, as `<ds:X509Certificate>` carries it in metadata. */
  certificateBody: string;
  privateKey: KeyObject;
}

/** Why a configured pair cannot be used: a sentence for the startup problem, naming no value. */
export type PemKeyPairProblem = { key: 'certificate' | 'privateKey'; reason: string };

/**
 * Reads a certificate and its RSA private key from PEM text (configuration values, so
 * `\n` written as the two characters of an escaped newline is accepted too). Never
 * throws, and no reason quotes anything of either value: the key is a secret, and
 * node's parse errors can echo what they read. Refused: text that is not a PEM
 * certificate or a PEM private key (PKCS#8 or PKCS#1, unencrypted), a key other than RSA
 * of at least 2048 bits (what SAML's RSA-SHA256 signatures and RSA-OAEP use), and a
 * key that is not the certificate's (its public half differs).
 */
export function readPemKeyPair(certificatePem: string, privateKeyPem: string): PemKeyPair | PemKeyPairProblem {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(unescapeNewlines(certificatePem));
  } catch {
    return { key: 'certificate', reason: 'is not a PEM certificate (-----BEGIN CERTIFICATE-----)' };
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: unescapeNewlines(privateKeyPem), format: 'pem' });
  } catch {
    return {
      key: 'privateKey',
      reason: 'is not an unencrypted PEM private key (-----BEGIN PRIVATE KEY----- or -----BEGIN RSA PRIVATE KEY-----)',
    };
  }
  if (privateKey.asymmetricKeyType !== 'rsa' || (privateKey.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) {
    return { key: 'privateKey', reason: 'must be an RSA key of at least 2048 bits' };
  }
  const publicOfKey = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  const publicOfCertificate = certificate.publicKey.export({ type: 'spki', format: 'der' });
  if (!publicOfKey.equals(publicOfCertificate)) {
    return { key: 'privateKey', reason: 'is not the private key of the configured certificate' };
  }
  return { certificate, certificateBody: certificate.raw.toString('base64'), privateKey };
}

/** True when the value is a problem, not a pair. */
export function isPemKeyPairProblem(value: PemKeyPair | PemKeyPairProblem): value is PemKeyPairProblem {
  return 'reason' in value;
}

/** An environment variable cannot hold a newline easily: `\n` spelled out stands for one. */
function unescapeNewlines(pem: string): string {
  return pem.includes('\\n') ? pem.replace(/\\n/g, '\n') : pem;
}
