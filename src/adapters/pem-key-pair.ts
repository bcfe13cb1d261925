import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';

/**
 * A certificate and its private key, configured as PEM text (a SAML service provider's
 * encryption or signing pair). The key is a secret: nothing here puts any part of either
 * value in a message, and the problems below are written by us, never by the parser.
 */
export interface PemKeyPair {
  certificate: X509Certificate;
  /** The certificate's base64 DER body, as `<ds:X509Certificate>` carries it in metadata. */
  certificateBody: string;
  privateKey: KeyObject;
}

/**
 * PEM as configured: environment variables and one-line settings often carry the line
 * breaks as the two characters `\n`, so those are read as line breaks.
 */
export function normalizePem(text: string): string {
  return text.replace(/\\n/g, '\n').replace(/\r\n?/g, '\n').trim();
}

/** The X.509 certificate of a `-----BEGIN CERTIFICATE-----` block; undefined when it is none. */
export function readPemCertificate(text: string): X509Certificate | undefined {
  const pem = normalizePem(text);
  if (!pem.startsWith('-----BEGIN CERTIFICATE-----')) return undefined;
  try {
    return new X509Certificate(pem);
  } catch {
    return undefined;
  }
}

/**
 * An unencrypted private key in PEM (PKCS#8 `PRIVATE KEY`, or PKCS#1 `RSA PRIVATE KEY`);
 * undefined for anything else, a passphrase-protected key included (it would need the
 * passphrase as another secret setting; decrypt it once with openssl instead).
 */
export function readPemPrivateKey(text: string): KeyObject | undefined {
  const pem = normalizePem(text);
  if (!/^-----BEGIN (RSA |EC )?PRIVATE KEY-----/.test(pem)) return undefined;
  try {
    return createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    return undefined;
  }
}

/** True when the private key is the one whose public half the certificate carries. */
export function keyMatchesCertificate(privateKey: KeyObject, certificate: X509Certificate): boolean {
  const fromKey = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  const fromCertificate = certificate.publicKey.export({ type: 'spki', format: 'der' });
  return fromKey.equals(fromCertificate);
}

/**
 * Reads a configured pair: `{ pair }`, or `{ problem }` saying what is wrong with which of
 * the two in words fit for a startup message (`certificate` or `key` first, then why).
 */
export function readPemKeyPair(
  certificateText: string,
  keyText: string,
):
  | { pair: PemKeyPair; problem?: undefined }
  | { pair?: undefined; problem: { of: 'certificate' | 'key'; reason: string } } {
  const certificate = readPemCertificate(certificateText);
  if (!certificate) return { problem: { of: 'certificate', reason: 'is not a PEM X.509 certificate' } };
  const privateKey = readPemPrivateKey(keyText);
  if (!privateKey) {
    return {
      problem: { of: 'key', reason: 'is not an unencrypted PEM private key (PKCS#8 or PKCS#1, without a passphrase)' },
    };
  }
  if (!keyMatchesCertificate(privateKey, certificate)) {
    return { problem: { of: 'key', reason: 'does not belong to the certificate configured with it' } };
  }
  const certificateBody = certificate.raw.toString('base64');
  return { pair: { certificate, certificateBody, privateKey } };
}
