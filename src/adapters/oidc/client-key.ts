import { createHash, createPrivateKey, type KeyObject } from 'node:crypto';
import { isKeyOfCertificate, readPemCertificateObject, readPemPrivateKey } from '../pem-key-pair.js';

/** The JWS algorithms a client assertion is signed with, by key: RSA (PKCS#1 v1.5) or ECDSA on its curve. */
export type ClientAssertionAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

/**
 * The key `private_key_jwt` signs client assertions with (RFC 7523 section 3; OIDC Core
 * 9), read from `ClientKey` (and `ClientCertificate`, when given).
 */
export interface ClientKey {
  privateKey: KeyObject;
  algorithm: ClientAssertionAlgorithm;
  /** The JWK's `kid`, named in the assertion's header so the provider finds the key among the client's. */
  kid?: string;
  /**
   * The certificate's thumbprints (RFC 7515 4.1.7 and 4.1.8), named in the header as well:
   * Microsoft Entra ID finds a client's certificate by them (`x5t#S256`, formerly `x5t`).
   */
  thumbprints?: { x5t: string; 'x5t#S256': string };
}

/** Why the configured key cannot be used: which setting, and a reason fit for a startup message. */
export interface ClientKeyProblem {
  setting: 'ClientKey' | 'ClientCertificate';
  reason: string;
}

/** Below 2048 bits an RSA key is refused (NIST SP 800-131A), as for the SAML keys. */
const MIN_RSA_BITS = 2048;
const EC_ALGORITHMS: Readonly<Record<string, ClientAssertionAlgorithm>> = {
  prime256v1: 'ES256',
  secp384r1: 'ES384',
  secp521r1: 'ES512',
};

/**
 * Reads `ClientKey`: an unencrypted PEM private key (PKCS#8, PKCS#1 or SEC 1), or a private
 * JWK as JSON (its `kid` is kept); RSA of at least 2048 bits, or EC on P-256, P-384 or
 * P-521. With `ClientCertificate` (PEM), the key must be the certificate's. Never throws,
 * and no reason quotes either value: the key is a secret (and node's parse errors can echo
 * what they read, so none reaches a message).
 */
export function readClientKey(keyText: string, certificateText: string): ClientKey | ClientKeyProblem {
  const key = keyText.trim();
  const read = key.startsWith('{') ? readJwk(key) : readPem(key);
  if ('reason' in read) return read;
  const algorithm = algorithmOf(read.privateKey);
  if (!algorithm) {
    return {
      setting: 'ClientKey',
      reason: `must be an RSA key of at least ${MIN_RSA_BITS} bits, or an EC key on P-256, P-384 or P-521`,
    };
  }
  if (read.alg !== undefined && read.alg !== algorithm) {
    return {
      setting: 'ClientKey',
      reason: `is a JWK whose "alg" is not ${algorithm}, the algorithm its key signs with here`,
    };
  }
  const clientKey: ClientKey = {
    privateKey: read.privateKey,
    algorithm,
    ...(read.kid === undefined ? {} : { kid: read.kid }),
  };
  if (certificateText.trim() === '') return clientKey;
  const certificate = readPemCertificateObject(certificateText);
  if (!certificate) {
    return { setting: 'ClientCertificate', reason: 'is not a PEM certificate (-----BEGIN CERTIFICATE-----)' };
  }
  if (!isKeyOfCertificate(read.privateKey, certificate)) {
    return { setting: 'ClientKey', reason: 'is not the private key of ClientCertificate' };
  }
  return {
    ...clientKey,
    thumbprints: {
      x5t: createHash('sha1').update(certificate.raw).digest('base64url'),
      'x5t#S256': createHash('sha256').update(certificate.raw).digest('base64url'),
    },
  };
}

export function isClientKeyProblem(value: ClientKey | ClientKeyProblem): value is ClientKeyProblem {
  return 'reason' in value;
}

interface ReadKey {
  privateKey: KeyObject;
  kid?: string;
  alg?: string;
}

function readPem(text: string): ReadKey | ClientKeyProblem {
  const privateKey = readPemPrivateKey(text);
  return privateKey
    ? { privateKey }
    : {
        setting: 'ClientKey',
        reason: 'is neither an unencrypted PEM private key (without a passphrase) nor a private JWK (JSON)',
      };
}

function readJwk(text: string): ReadKey | ClientKeyProblem {
  const notPrivate: ClientKeyProblem = { setting: 'ClientKey', reason: 'is JSON but not a private JWK (with "d")' };
  let jwk: unknown;
  try {
    jwk = JSON.parse(text);
  } catch {
    return { setting: 'ClientKey', reason: 'starts like JSON but is not valid JSON' };
  }
  if (typeof jwk !== 'object' || jwk === null || !('kty' in jwk) || !('d' in jwk)) return notPrivate;
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: Object.fromEntries(Object.entries(jwk)), format: 'jwk' });
  } catch {
    return notPrivate;
  }
  const kid = 'kid' in jwk && typeof jwk.kid === 'string' && jwk.kid !== '' ? jwk.kid : undefined;
  const alg = 'alg' in jwk && typeof jwk.alg === 'string' ? jwk.alg : undefined;
  return { privateKey, ...(kid === undefined ? {} : { kid }), ...(alg === undefined ? {} : { alg }) };
}

function algorithmOf(key: KeyObject): ClientAssertionAlgorithm | undefined {
  if (key.asymmetricKeyType === 'rsa') {
    return (key.asymmetricKeyDetails?.modulusLength ?? 0) >= MIN_RSA_BITS ? 'RS256' : undefined;
  }
  if (key.asymmetricKeyType === 'ec') return EC_ALGORITHMS[key.asymmetricKeyDetails?.namedCurve ?? ''];
  return undefined;
}
