import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { GatehouseError } from '../../domain/errors.js';
import { checkMessageSize, LOGOUT_MESSAGE_SIZE } from './message-size.js';
import { samlRefusal } from './saml-refusals.js';
import type { SigningCertificate } from './signing-certificate.js';

/** The signature algorithm of everything Gatehouse signs (SAML Bindings 3.4.4.1 `SigAlg`). */
export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
/** What a received query signature may use: SHA-1 is refused, as for XML signatures. */
const ACCEPTED_SIGNATURE_ALGORITHMS: Readonly<Record<string, string>> = {
  [RSA_SHA256]: 'sha256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512': 'sha512',
};

export type MessageField = 'SAMLRequest' | 'SAMLResponse';

/**
 * A message sent with the HTTP-Redirect binding (SAML Bindings 3.4.4.1): DEFLATE, base64,
 * URL-encoded, appended to the endpoint's own query. Signed with `signingKey`, the query
 * carries `SigAlg` (RSA-SHA256) and a `Signature` over exactly
 * `SAMLRequest=…&RelayState=…&SigAlg=…` as sent (RelayState only when there is one). Built
 * here, percent-encoding every value with `encodeURIComponent`, so the signed octets are
 * the sent ones; the URL is assembled with the WHATWG parser.
 */
export function redirectBindingUrl(
  endpoint: string,
  field: MessageField,
  xml: string,
  options: { relayState?: string; signingKey?: KeyObject },
): string {
  let query = `${field}=${encodeURIComponent(deflateRawSync(Buffer.from(xml, 'utf8')).toString('base64'))}`;
  if (options.relayState !== undefined) query += `&RelayState=${encodeURIComponent(options.relayState)}`;
  if (options.signingKey) {
    query += `&SigAlg=${encodeURIComponent(RSA_SHA256)}`;
    const signature = sign('sha256', Buffer.from(query, 'utf8'), options.signingKey).toString('base64');
    query += `&Signature=${encodeURIComponent(signature)}`;
  }
  const url = new URL(endpoint);
  url.search = url.search === '' ? query : `${url.search.slice(1)}&${query}`;
  return url.href;
}

/** A message received with the HTTP-Redirect binding, its query signature verified, then decoded. */
export interface RedirectMessage {
  field: MessageField;
  xml: string;
  relayState: string | undefined;
  /** The metadata certificate whose key made the query signature. */
  signer: SigningCertificate;
}

/**
 * Reads a message from the query as the browser sent it (`rawQuery` without `?`): one
 * `SAMLRequest` or `SAMLResponse`, each parameter at most once. The query signature is
 * checked before anything of the message is decoded (SAML Bindings 3.4.4.1: it covers the
 * parameters as they appear in the URL, so the signed octets are cut from the raw query,
 * never re-encoded), with the metadata's certificates only: an unsigned or wrongly signed
 * query costs a split and one RSA verification per certificate, never an inflation or a
 * parse. Only then is the value inflated, within LOGOUT_MESSAGE_SIZE (`idp.message_too_large`
 * beyond it, so a small DEFLATE bomb costs nothing either).
 */
export function readRedirectMessage(rawQuery: string, certificates: readonly SigningCertificate[]): RedirectMessage {
  const raw = new Map<string, string>();
  for (const part of rawQuery.split('&')) {
    if (part === '') continue;
    const separator = part.indexOf('=');
    const name = separator === -1 ? part : part.slice(0, separator);
    if (!['SAMLRequest', 'SAMLResponse', 'RelayState', 'SigAlg', 'Signature'].includes(name)) continue;
    if (raw.has(name)) {
      throw new GatehouseError(
        'request.repeated_parameter',
        `The query parameter "${name}" must appear at most once.`,
        {
          safe: true,
        },
      );
    }
    raw.set(name, separator === -1 ? '' : part.slice(separator + 1));
  }
  const request = raw.get('SAMLRequest');
  const response = raw.get('SAMLResponse');
  if ((request === undefined) === (response === undefined)) throw samlRefusal('idp.logout_malformed');
  const field: MessageField = request !== undefined ? 'SAMLRequest' : 'SAMLResponse';
  const encoded = (request ?? response) as string;
  const relayState = raw.get('RelayState');
  const sigAlg = raw.get('SigAlg');
  const signature = raw.get('Signature');
  if (signature === undefined || sigAlg === undefined) throw samlRefusal('idp.logout_signature_missing');
  const octets = `${field}=${encoded}${relayState === undefined ? '' : `&RelayState=${relayState}`}&SigAlg=${sigAlg}`;
  const signer = verifyQuerySignature(
    decodeQueryValue(sigAlg),
    strictBase64(decodeQueryValue(signature)),
    Buffer.from(octets, 'utf8'),
    certificates,
  );
  const xml = inflate(strictBase64(decodeQueryValue(encoded)));
  checkMessageSize(xml, LOGOUT_MESSAGE_SIZE);
  return {
    field,
    xml,
    relayState: relayState === undefined ? undefined : decodeQueryValue(relayState),
    signer,
  };
}

/**
 * Verifies a query signature with the metadata's certificates only; the certificate that
 * verified it. RSA-SHA256 or RSA-SHA512; anything else is refused before any key is tried.
 */
function verifyQuerySignature(
  algorithm: string,
  value: Buffer,
  signedOctets: Buffer,
  certificates: readonly SigningCertificate[],
): SigningCertificate {
  const digest = ACCEPTED_SIGNATURE_ALGORITHMS[algorithm];
  if (digest === undefined) throw samlRefusal('idp.signature_algorithm_refused');
  for (const certificate of certificates) {
    try {
      if (verify(digest, signedOctets, publicKeyOf(certificate), value)) return certificate;
    } catch {
      // A malformed signature value is no signature: the next certificate, then a refusal.
    }
  }
  throw samlRefusal('idp.logout_signature_invalid');
}

/** Each certificate's public key, read once: given the PEM, node parses the certificate on every verification (0.4 ms; 60 µs with the key). */
const publicKeys = new WeakMap<SigningCertificate, KeyObject>();

function publicKeyOf(certificate: SigningCertificate): KeyObject {
  let key = publicKeys.get(certificate);
  if (key === undefined) {
    key = createPublicKey(certificate.pem);
    publicKeys.set(certificate, key);
  }
  return key;
}

function decodeQueryValue(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    throw samlRefusal('idp.logout_malformed');
  }
}

function strictBase64(text: string): Buffer {
  const compact = text.replace(/[\r\n]/g, '');
  if (compact === '' || compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) {
    throw samlRefusal('idp.logout_malformed');
  }
  return Buffer.from(compact, 'base64');
}

function inflate(deflated: Buffer): string {
  let bytes: Buffer;
  try {
    bytes = inflateRawSync(deflated, { maxOutputLength: LOGOUT_MESSAGE_SIZE.xmlBytes });
  } catch (error) {
    // Node stops inflating at the bound and says so; anything else is not DEFLATE.
    if (error instanceof RangeError && 'code' in error && error.code === 'ERR_BUFFER_TOO_LARGE') {
      throw samlRefusal('idp.message_too_large');
    }
    throw samlRefusal('idp.logout_malformed');
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw samlRefusal('idp.logout_malformed');
  }
}
