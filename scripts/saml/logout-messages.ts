/**
 * SAML 2.0 single-logout messages as an identity provider writes them (SAML Core 3.7),
 * from templates, signed with xml-crypto (HTTP-POST: an enveloped signature on the root)
 * or with node:crypto over the query (HTTP-Redirect, SAML Bindings 3.4.4.1): a side that
 * shares no code with samlify or src/, for the demo identity provider and the tests. Every
 * field can be left out or made wrong. Development only: nothing in src/ imports it.
 */
import { sign } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { escapeXml, newSamlId, SAML_ASSERTION, SAML_PROTOCOL, STATUS_SUCCESS } from './saml-response.js';
import type { SigningCredential } from './signing-credential.js';

export const RSA_SHA256_URI = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
export const RSA_SHA1_URI = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';

const iso = (ms: number) => new Date(ms).toISOString();
const optional = (name: string, value: string | null | undefined) =>
  value === undefined || value === null ? '' : ` ${name}="${escapeXml(value)}"`;

export interface LogoutRequestFields {
  id?: string;
  issuer: string;
  /** `null` leaves Destination out. */
  destination: string | null;
  nameId: string;
  nameIdFormat?: string;
  nameQualifier?: string;
  spNameQualifier?: string;
  sessionIndexes?: string[];
  /** Milliseconds since the epoch; default now. */
  issuedAt?: number;
  notOnOrAfter?: number;
}

export function logoutRequestXml(fields: LogoutRequestFields): string {
  return (
    `<samlp:LogoutRequest xmlns:samlp="${SAML_PROTOCOL}" xmlns:saml="${SAML_ASSERTION}" ID="${fields.id ?? newSamlId()}" Version="2.0" IssueInstant="${iso(fields.issuedAt ?? Date.now())}"${optional('Destination', fields.destination)}${fields.notOnOrAfter === undefined ? '' : ` NotOnOrAfter="${iso(fields.notOnOrAfter)}"`}>` +
    `<saml:Issuer>${escapeXml(fields.issuer)}</saml:Issuer>` +
    `<saml:NameID${optional('Format', fields.nameIdFormat)}${optional('NameQualifier', fields.nameQualifier)}${optional('SPNameQualifier', fields.spNameQualifier)}>${escapeXml(fields.nameId)}</saml:NameID>` +
    (fields.sessionIndexes ?? [])
      .map((index) => `<samlp:SessionIndex>${escapeXml(index)}</samlp:SessionIndex>`)
      .join('') +
    `</samlp:LogoutRequest>`
  );
}

export interface LogoutResponseFields {
  id?: string;
  issuer: string;
  destination: string | null;
  inResponseTo: string;
  issuedAt?: number;
  statusCode?: string;
}

export function logoutResponseXml(fields: LogoutResponseFields): string {
  return (
    `<samlp:LogoutResponse xmlns:samlp="${SAML_PROTOCOL}" xmlns:saml="${SAML_ASSERTION}" ID="${fields.id ?? newSamlId()}" Version="2.0" IssueInstant="${iso(fields.issuedAt ?? Date.now())}"${optional('Destination', fields.destination)} InResponseTo="${escapeXml(fields.inResponseTo)}">` +
    `<saml:Issuer>${escapeXml(fields.issuer)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="${fields.statusCode ?? STATUS_SUCCESS}"/></samlp:Status>` +
    `</samlp:LogoutResponse>`
  );
}

export interface RedirectOptions {
  relayState?: string;
  /** Sign the query with this key (omit for an unsigned message). */
  credential?: SigningCredential;
  /** Default RSA-SHA256; RSA-SHA1 signs with SHA-1. */
  sigAlg?: string;
}

/** SAML Bindings 3.4.4.1: the message DEFLATEd, base64, URL-encoded, and the query signed over the parameters as sent. */
export function redirectUrl(
  endpoint: string,
  field: 'SAMLRequest' | 'SAMLResponse',
  xml: string,
  options: RedirectOptions = {},
): string {
  let query = `${field}=${encodeURIComponent(deflateRawSync(Buffer.from(xml)).toString('base64'))}`;
  if (options.relayState !== undefined) query += `&RelayState=${encodeURIComponent(options.relayState)}`;
  if (options.credential) {
    const sigAlg = options.sigAlg ?? RSA_SHA256_URI;
    query += `&SigAlg=${encodeURIComponent(sigAlg)}`;
    const digest = sigAlg === RSA_SHA1_URI ? 'sha1' : 'sha256';
    const signature = sign(digest, Buffer.from(query), options.credential.privateKeyPem).toString('base64');
    query += `&Signature=${encodeURIComponent(signature)}`;
  }
  return `${endpoint}${endpoint.includes('?') ? '&' : '?'}${query}`;
}
