/**
 * `<saml:EncryptedAssertion>` written by hand with node:crypto (XML Encryption 1.1): a
 * random AES key encrypts the assertion's XML (AES-GCM or AES-CBC), and RSA-OAEP (or, to
 * test its refusal, RSA PKCS#1 v1.5) encrypts that key to the service provider's
 * certificate. Shares no code with samlify or xml-encryption, so the service provider's
 * decryption is tested against an independent writer. Development only: nothing in src/
 * imports it.
 */
import { constants, createCipheriv, publicEncrypt, randomBytes, X509Certificate } from 'node:crypto';
import { escapeXml, SAML_ASSERTION } from './saml-response.js';

const XENC = 'http://www.w3.org/2001/04/xmlenc#';
const XENC11 = 'http://www.w3.org/2009/xmlenc11#';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';

export type ContentAlgorithm = 'aes128-gcm' | 'aes256-gcm' | 'aes128-cbc' | 'aes256-cbc' | 'tripledes-cbc';
/** `oaep-mgf1p` (SHA-1), `oaep-sha256` (xmlenc11#rsa-oaep, SHA-256 digest and MGF1), `oaep-mixed` (SHA-256 digest, MGF1-SHA1), `rsa-1_5`. */
export type KeyTransportAlgorithm = 'oaep-mgf1p' | 'oaep-sha1-xmlenc11' | 'oaep-sha256' | 'oaep-mixed' | 'rsa-1_5';

export interface EncryptOptions {
  /** The service provider's encryption certificate (PEM). */
  certificatePem: string;
  content?: ContentAlgorithm;
  keyTransport?: KeyTransportAlgorithm;
  /** Where the EncryptedKey goes: in the EncryptedData's KeyInfo (default, as Shibboleth does) or beside it. */
  keyPlacement?: 'inline' | 'sibling';
  /** The EncryptedKey's Recipient attribute (Shibboleth sets the SP's entity ID). */
  recipient?: string;
  /** Changes the content ciphertext (IV, ciphertext and tag, as bytes) before it is written: the tamper tests. */
  tamperContent?: (bytes: Buffer) => Buffer;
  /** The bytes encrypted, from the assertion's XML (default its UTF-8); CBC padding is added here, unless `rawPlaintext`. */
  plaintextOf?: (assertionXml: string) => Buffer;
  /** CBC only: the plaintext is already whole blocks, no padding is added (the bad-padding tests). */
  rawPlaintext?: boolean;
}

const CONTENT: Record<ContentAlgorithm, { uri: string; cipher: string; keyBytes: number; ivBytes: number }> = {
  'aes128-gcm': { uri: `${XENC11}aes128-gcm`, cipher: 'aes-128-gcm', keyBytes: 16, ivBytes: 12 },
  'aes256-gcm': { uri: `${XENC11}aes256-gcm`, cipher: 'aes-256-gcm', keyBytes: 32, ivBytes: 12 },
  'aes128-cbc': { uri: `${XENC}aes128-cbc`, cipher: 'aes-128-cbc', keyBytes: 16, ivBytes: 16 },
  'aes256-cbc': { uri: `${XENC}aes256-cbc`, cipher: 'aes-256-cbc', keyBytes: 32, ivBytes: 16 },
  'tripledes-cbc': { uri: `${XENC}tripledes-cbc`, cipher: 'des-ede3-cbc', keyBytes: 24, ivBytes: 8 },
};

/** Encrypts the assertion XML (signed or not) into an `<saml:EncryptedAssertion>` for the certificate's key. */
export function encryptAssertion(assertionXml: string, options: EncryptOptions): string {
  const content = CONTENT[options.content ?? 'aes256-gcm'];
  const key = randomBytes(content.keyBytes);
  const iv = randomBytes(content.ivBytes);
  const plaintext = options.plaintextOf ? options.plaintextOf(assertionXml) : Buffer.from(assertionXml, 'utf8');
  let bytes: Buffer;
  if (content.cipher.endsWith('gcm')) {
    const cipher = createCipheriv(content.cipher as 'aes-128-gcm', key, iv, { authTagLength: 16 });
    bytes = Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  } else {
    // XML Encryption 5.2: pad to whole blocks, the last byte giving the padding length.
    const block = content.ivBytes;
    const padLength = block - (plaintext.length % block);
    const padded = options.rawPlaintext
      ? plaintext
      : Buffer.concat([plaintext, randomBytes(padLength - 1), Buffer.from([padLength])]);
    const cipher = createCipheriv(content.cipher, key, iv);
    cipher.setAutoPadding(false);
    bytes = Buffer.concat([iv, cipher.update(padded), cipher.final()]);
  }
  if (options.tamperContent) bytes = options.tamperContent(bytes);
  const encryptedKey = encryptedKeyXml(key, options);
  const keyInfo =
    options.keyPlacement === 'sibling' ? '' : `<ds:KeyInfo xmlns:ds="${DSIG}">${encryptedKey}</ds:KeyInfo>`;
  return (
    `<saml:EncryptedAssertion xmlns:saml="${SAML_ASSERTION}">` +
    `<xenc:EncryptedData xmlns:xenc="${XENC}" Id="_${randomBytes(16).toString('hex')}" Type="${XENC}Element">` +
    `<xenc:EncryptionMethod Algorithm="${content.uri}"/>` +
    keyInfo +
    `<xenc:CipherData><xenc:CipherValue>${bytes.toString('base64')}</xenc:CipherValue></xenc:CipherData>` +
    `</xenc:EncryptedData>` +
    (options.keyPlacement === 'sibling' ? encryptedKey : '') +
    `</saml:EncryptedAssertion>`
  );
}

function encryptedKeyXml(key: Buffer, options: EncryptOptions): string {
  const transport = options.keyTransport ?? 'oaep-mgf1p';
  const publicKey = new X509Certificate(options.certificatePem).publicKey;
  const oaep = (oaepHash: string) =>
    publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash }, key);
  const sha1 = `<ds:DigestMethod Algorithm="${DSIG}sha1"/>`;
  const sha256 = `<ds:DigestMethod Algorithm="${XENC}sha256"/>`;
  const [method, encrypted] = {
    'oaep-mgf1p': () => [
      `<xenc:EncryptionMethod Algorithm="${XENC}rsa-oaep-mgf1p">${sha1}</xenc:EncryptionMethod>`,
      oaep('sha1'),
    ],
    'oaep-sha1-xmlenc11': () => [`<xenc:EncryptionMethod Algorithm="${XENC11}rsa-oaep"/>`, oaep('sha1')],
    'oaep-sha256': () => [
      `<xenc:EncryptionMethod Algorithm="${XENC11}rsa-oaep">${sha256}<xenc11:MGF xmlns:xenc11="${XENC11}" Algorithm="${XENC11}mgf1sha256"/></xenc:EncryptionMethod>`,
      oaep('sha256'),
    ],
    // Cannot be produced with node:crypto (one hash for both): encrypted with SHA-256 throughout, labelled mixed.
    'oaep-mixed': () => [
      `<xenc:EncryptionMethod Algorithm="${XENC}rsa-oaep-mgf1p">${sha256}</xenc:EncryptionMethod>`,
      oaep('sha256'),
    ],
    'rsa-1_5': () => [
      `<xenc:EncryptionMethod Algorithm="${XENC}rsa-1_5"/>`,
      publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, key),
    ],
  }[transport]() as [string, Buffer];
  const recipient = options.recipient === undefined ? '' : ` Recipient="${escapeXml(options.recipient)}"`;
  return (
    `<xenc:EncryptedKey xmlns:xenc="${XENC}" xmlns:ds="${DSIG}" Id="_${randomBytes(16).toString('hex')}"${recipient}>` +
    method +
    `<ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificateBody(options.certificatePem)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>` +
    `<xenc:CipherData><xenc:CipherValue>${encrypted.toString('base64')}</xenc:CipherValue></xenc:CipherData>` +
    `</xenc:EncryptedKey>`
  );
}

function certificateBody(pem: string): string {
  return pem.replace(/-----[A-Z ]+-----|\s/g, '');
}
