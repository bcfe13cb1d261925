import { constants, createDecipheriv, privateDecrypt, type KeyObject } from 'node:crypto';
import { GatehouseError } from '../../domain/errors.js';
import {
  CONTENT_ENCRYPTIONS,
  EncryptionNamespaces,
  KeyTransport,
  OAEP_DIGESTS,
  OAEP_MASKS,
} from './encryption-algorithms.js';
import { Namespaces } from './saml-names.js';
import { samlRefusal } from './saml-refusals.js';
import { attributeOf, childElements } from './saml-xml.js';

/** An identity provider encrypts the key once per recipient key; more than a few is no legitimate message. */
const MAX_ENCRYPTED_KEYS = 4;
const GCM_TAG_BYTES = 16;
const AES_BLOCK_BYTES = 16;
const ELEMENT_TYPE = 'http://www.w3.org/2001/04/xmlenc#Element';

/** Which step of a decryption failed: for the operator's log line only, never for the answer. */
export type DecryptionFailure = 'no-key-decrypts' | 'content' | 'plaintext';

/**
 * Every failure to decrypt is the same refusal, `idp.assertion_invalid`, with the same
 * message: a wrong key, a broken AES-GCM tag and bad AES-CBC padding must look alike to the
 * sender, or the answer is a decryption oracle (Jager & Somorovsky, "How to Break XML
 * Encryption", CCS 2011). The step is kept as the error's cause for the log.
 */
export function decryptionRefusal(step: DecryptionFailure): GatehouseError {
  const refusal = samlRefusal('idp.assertion_invalid');
  return new GatehouseError(refusal.code, refusal.message, { safe: true, cause: { decryption: step } });
}

/** The step of a refusal made by `decryptionRefusal`, if it is one. */
export function decryptionStepOf(error: GatehouseError): DecryptionFailure | undefined {
  const cause: unknown = error.cause;
  return typeof cause === 'object' && cause !== null && 'decryption' in cause
    ? (cause.decryption as DecryptionFailure)
    : undefined;
}

/** The decrypted text, and whether decryption already failed (the caller parses it all the same, then refuses). */
export interface DecryptedText {
  xml: string;
  failure: DecryptionFailure | undefined;
}

interface KeyTransportParameters {
  oaepHash: string;
  oaepLabel: Buffer | undefined;
}

/**
 * Decrypts a `<saml:EncryptedAssertion>` (SAML Core 2.3.4, XML Encryption 1.1) with
 * node:crypto and returns the plaintext: the assertion's XML, still to be parsed and
 * checked. Bad AES-CBC padding or bytes that are not UTF-8 do not stop here: the text is
 * returned with its `failure`, so that the caller parses it as it parses a good one and
 * only then refuses, and a padding failure takes as long as a parse failure. The `<xenc:EncryptedKey>` may sit in the EncryptedData's KeyInfo or beside it
 * (SAML Core 2.2.4); each is tried with each configured key.
 *
 * Every algorithm is read and judged before anything is decrypted: one not accepted
 * (encryption-algorithms.ts) is `idp.encryption_algorithm_refused`, a fact of the
 * message's visible text that tells the sender nothing about the plaintext. After that,
 * every failure is `decryptionRefusal` (one answer for all).
 */
export function decryptAssertion(encryptedAssertion: Element, keys: readonly KeyObject[]): DecryptedText {
  const [data, ...moreData] = childElements(encryptedAssertion, EncryptionNamespaces.xenc, 'EncryptedData');
  if (!data || moreData.length > 0) throw samlRefusal('idp.assertion_invalid');
  const type = attributeOf(data, 'Type');
  if (type !== undefined && type !== ELEMENT_TYPE) throw samlRefusal('idp.assertion_invalid');
  const content = CONTENT_ENCRYPTIONS.get(algorithmOf(data) ?? '');
  if (!content) throw samlRefusal('idp.encryption_algorithm_refused');

  const [keyInfo] = childElements(data, Namespaces.signature, 'KeyInfo');
  const encryptedKeys = [
    ...(keyInfo ? childElements(keyInfo, EncryptionNamespaces.xenc, 'EncryptedKey') : []),
    ...childElements(encryptedAssertion, EncryptionNamespaces.xenc, 'EncryptedKey'),
  ];
  if (encryptedKeys.length === 0 || encryptedKeys.length > MAX_ENCRYPTED_KEYS) {
    throw samlRefusal('idp.assertion_invalid');
  }
  const transports = encryptedKeys.map((encryptedKey) => ({
    parameters: keyTransportOf(encryptedKey),
    cipherValue: cipherValueOf(encryptedKey),
  }));
  const cipherValue = cipherValueOf(data);

  let contentKey: Buffer | undefined;
  search: for (const transport of transports) {
    for (const key of keys) {
      try {
        contentKey = privateDecrypt(
          {
            key,
            padding: constants.RSA_PKCS1_OAEP_PADDING,
            oaepHash: transport.parameters.oaepHash,
            ...(transport.parameters.oaepLabel ? { oaepLabel: transport.parameters.oaepLabel } : {}),
          },
          transport.cipherValue,
        );
      } catch {
        continue; // another key's, or tampered: the next pair is tried, and the answer is the same
      }
      if (contentKey.length === content.keyBytes) break search;
      contentKey = undefined;
    }
  }
  if (!contentKey) throw decryptionRefusal('no-key-decrypts');
  const { plaintext, paddingValid } = decryptContent(content, contentKey, cipherValue);
  try {
    const xml = new TextDecoder('utf-8', { fatal: true }).decode(plaintext);
    return { xml, failure: paddingValid ? undefined : 'content' };
  } catch {
    return { xml: new TextDecoder('utf-8').decode(plaintext), failure: paddingValid ? 'plaintext' : 'content' };
  }
}

function decryptContent(
  content: { cipher: string; ivBytes: number; gcm: boolean },
  key: Buffer,
  bytes: Buffer,
): { plaintext: Buffer; paddingValid: boolean } {
  try {
    const iv = bytes.subarray(0, content.ivBytes);
    if (content.gcm) {
      // XML Encryption 1.1 5.2.4: IV (96 bits), then the ciphertext, then the 128-bit tag.
      if (bytes.length < content.ivBytes + GCM_TAG_BYTES) throw new Error('short');
      const decipher = createDecipheriv(content.cipher as 'aes-128-gcm', key, iv, { authTagLength: GCM_TAG_BYTES });
      decipher.setAuthTag(bytes.subarray(bytes.length - GCM_TAG_BYTES));
      const plaintext = Buffer.concat([
        decipher.update(bytes.subarray(content.ivBytes, bytes.length - GCM_TAG_BYTES)),
        decipher.final(),
      ]);
      return { plaintext, paddingValid: true };
    }
    // XML Encryption 5.2: IV, then whole blocks; the last byte of the plaintext is the
    // padding length (1 to 16), the other padding bytes are arbitrary (not PKCS#7).
    const body = bytes.subarray(content.ivBytes);
    if (body.length === 0 || body.length % AES_BLOCK_BYTES !== 0) throw new Error('not whole blocks');
    const decipher = createDecipheriv(content.cipher, key, iv);
    decipher.setAutoPadding(false);
    const padded = Buffer.concat([decipher.update(body), decipher.final()]);
    const padding = padded[padded.length - 1] ?? 0;
    const paddingValid = padding >= 1 && padding <= AES_BLOCK_BYTES;
    return { plaintext: paddingValid ? padded.subarray(0, padded.length - padding) : padded, paddingValid };
  } catch {
    throw decryptionRefusal('content');
  }
}

/** The RSA-OAEP parameters of an EncryptedKey; anything but RSA-OAEP with one hash for digest and mask is refused. */
function keyTransportOf(encryptedKey: Element): KeyTransportParameters {
  const [method] = childElements(encryptedKey, EncryptionNamespaces.xenc, 'EncryptionMethod');
  const algorithm = method ? attributeOf(method, 'Algorithm') : undefined;
  if (!method || (algorithm !== KeyTransport.rsaOaepMgf1p && algorithm !== KeyTransport.rsaOaep)) {
    throw samlRefusal('idp.encryption_algorithm_refused');
  }
  const uriOf = (namespace: string, name: string) => {
    const [element, ...more] = childElements(method, namespace, name);
    if (more.length > 0) throw samlRefusal('idp.assertion_invalid');
    return element ? attributeOf(element, 'Algorithm') : undefined;
  };
  const digest = OAEP_DIGESTS.get(
    uriOf(Namespaces.signature, 'DigestMethod') ?? 'http://www.w3.org/2000/09/xmldsig#sha1',
  );
  // rsa-oaep-mgf1p fixes the mask to MGF1 with SHA-1; xmlenc11#rsa-oaep names it, SHA-1 by default.
  const mask =
    algorithm === KeyTransport.rsaOaepMgf1p
      ? 'sha1'
      : OAEP_MASKS.get(uriOf(EncryptionNamespaces.xenc11, 'MGF') ?? 'http://www.w3.org/2009/xmlenc11#mgf1sha1');
  // node:crypto (OpenSSL through it) uses the OAEP digest for MGF1 too: a mixed pair cannot be decrypted.
  if (digest === undefined || mask === undefined || digest !== mask) {
    throw samlRefusal('idp.encryption_algorithm_refused');
  }
  const [label] = childElements(method, EncryptionNamespaces.xenc, 'OAEPparams');
  return { oaepHash: digest, oaepLabel: label ? strictBase64(label.textContent ?? '') : undefined };
}

function algorithmOf(element: Element): string | undefined {
  const [method] = childElements(element, EncryptionNamespaces.xenc, 'EncryptionMethod');
  return method ? attributeOf(method, 'Algorithm') : undefined;
}

/** The bytes of `<xenc:CipherData><xenc:CipherValue>` (a CipherReference is not followed). */
function cipherValueOf(element: Element): Buffer {
  const [cipherData] = childElements(element, EncryptionNamespaces.xenc, 'CipherData');
  const [value] = cipherData ? childElements(cipherData, EncryptionNamespaces.xenc, 'CipherValue') : [];
  if (!value) throw samlRefusal('idp.assertion_invalid');
  return strictBase64(value.textContent ?? '');
}

function strictBase64(text: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  if (compact === '' || compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) {
    throw samlRefusal('idp.assertion_invalid');
  }
  return Buffer.from(compact, 'base64');
}
