import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';

/**
 * A certificate and its private key, configured as PEM text (a SAML service provider's
 * signing or encryption pair). The key is a secret: nothing here puts any part of either
 * value in a message, and the reasons below are written by us, never by the parser (node's
 * parse errors can echo what they read).
 */
export interface PemKeyPair {
  certificate: X509Certificate;
  /** The certificate's base64 DER body, as `<ds:X509Certificate>` carries it in metadata. */
  certificateBody: string;
  privateKey: KeyObject;
}

/** Why a configured pair cannot be used: which of the two, and a reason fit for a startup message. */
export interface PemKeyPairProblem {
  key: 'certificate' | 'privateKey';
  reason: string;
}

/** RSA-SHA256 signatures and RSA-OAEP key transport need RSA; below 2048 bits is refused (NIST SP 800-131A). */
const MIN_MODULUS_BITS = 2048;

/**
 * PEM as configured: environment variables and one-line settings often carry the line
 * breaks as the two characters `\n`, so those are read as line breaks.
 */
export function normalizePem(text: string): string {
  return text.replace(/\\n/g, '\n').replace(/\r\n?/g, '\n').trim();
}

/**
 * An unencrypted private key in PEM (PKCS#8, or PKCS#1 for RSA); undefined for anything
 * else. A passphrase-protected key is refused too: node cannot read it without the
 * passphrase, which would be another secret setting (decrypt it once with openssl instead).
 */
export function readPemPrivateKey(text: string): KeyObject | undefined {
  try {
    return createPrivateKey({ key: normalizePem(text), format: 'pem' });
  } catch {
    return undefined;
  }
}

/** One certificate in PEM (`-----BEGIN CERTIFICATE-----`); undefined for anything else. Never throws. */
export function readPemCertificateObject(text: string): X509Certificate | undefined {
  try {
    const pem = normalizePem(text);
    return pem.startsWith('-----BEGIN CERTIFICATE-----') ? new X509Certificate(pem) : undefined;
  } catch {
    return undefined;
  }
}

/** True when the private key is the one whose public half the certificate carries. */
export function isKeyOfCertificate(privateKey: KeyObject, certificate: X509Certificate): boolean {
  const publicOfKey = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  return publicOfKey.equals(certificate.publicKey.export({ type: 'spki', format: 'der' }));
}

/**
 * Reads a certificate and its RSA private key. Never throws. Refused: text that is not a
 * PEM certificate or an unencrypted PEM private key, a key other than RSA of at least 2048
 * bits, and a key that is not the certificate's (its public half differs).
 */
export function readPemKeyPair(certificateText: string, keyText: string): PemKeyPair | PemKeyPairProblem {
  const certificate = readPemCertificateObject(certificateText);
  if (!certificate) return { key: 'certificate', reason: 'is not a PEM certificate (-----BEGIN CERTIFICATE-----)' };
  const privateKey = readPemPrivateKey(keyText);
  if (!privateKey) {
    return {
      key: 'privateKey',
      reason: 'is not an unencrypted PEM private key (PKCS#8 or PKCS#1, without a passphrase)',
    };
  }
  if (
    privateKey.asymmetricKeyType !== 'rsa' ||
    (privateKey.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_MODULUS_BITS
  ) {
    return { key: 'privateKey', reason: `must be an RSA key of at least ${MIN_MODULUS_BITS} bits` };
  }
  if (!isKeyOfCertificate(privateKey, certificate)) {
    return { key: 'privateKey', reason: 'is not the private key of the configured certificate' };
  }
  return { certificate, certificateBody: certificate.raw.toString('base64'), privateKey };
}

/** True when the value is a problem, not a pair. */
export function isPemKeyPairProblem(value: PemKeyPair | PemKeyPairProblem): value is PemKeyPairProblem {
  return 'reason' in value;
}
