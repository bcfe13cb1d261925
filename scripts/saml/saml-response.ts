/**
 * SAML 2.0 Responses written from templates and signed with xml-crypto: an identity
 * provider's side that shares no code with samlify, for the demo identity provider, the
 * tests and the benchmark. Every field can be set, left out or made wrong, so a test can
 * build exactly the hostile response it needs. Development only: nothing in src/ imports it.
 */
import { randomBytes } from 'node:crypto';
import { SignedXml } from 'xml-crypto';
import type { SigningCredential } from './signing-credential.js';

export const SAML_PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
export const SAML_ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
export const STATUS_SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
export const RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
export const DIGEST_SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
export const DIGEST_SHA1 = 'http://www.w3.org/2000/09/xmldsig#sha1';

export interface AssertionFields {
  issuer: string;
  assertionId?: string;
  nameId: string;
  nameIdFormat?: string;
  /** Audiences of one AudienceRestriction; `null` leaves the restriction out. */
  audiences?: string[] | null;
  recipient: string;
  /** InResponseTo of the bearer confirmation; `null` leaves it out (an unsolicited assertion). */
  inResponseTo: string | null;
  /** Milliseconds since the epoch; default now. */
  issuedAt?: number;
  /** Conditions window; `conditions: false` leaves Conditions out. */
  notBefore?: number;
  notOnOrAfter?: number;
  conditions?: boolean;
  /** The bearer confirmation's NotOnOrAfter; default notOnOrAfter. */
  confirmationNotOnOrAfter?: number;
  confirmationMethod?: string;
  attributes?: Record<string, string[]>;
  /** When the person authenticated (the AuthnStatement's AuthnInstant), ms since the epoch; default the issue time. */
  authnInstant?: number;
  /** How (its AuthnContextClassRef); default PasswordProtectedTransport. */
  authnContextClassRef?: string;
}

export interface ResponseFields {
  issuer: string;
  responseId?: string;
  /** `null` leaves Destination out. */
  destination: string | null;
  /** `null` leaves InResponseTo out. */
  inResponseTo: string | null;
  issuedAt?: number;
  statusCode?: string;
  secondStatusCode?: string;
}

export interface SignOptions {
  credential: SigningCredential;
  signatureAlgorithm?: string;
  digestAlgorithm?: string;
  /** Put the signing certificate in KeyInfo (default true, as most identity providers do). */
  keyInfo?: boolean;
}

export function newSamlId(): string {
  return `_${randomBytes(16).toString('hex')}`;
}

export function escapeXml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A `<saml:Assertion>` (SAML Core 2.3.3) for Web Browser SSO (SAML Profiles 4.1.4.2). */
export function assertionXml(fields: AssertionFields): string {
  const now = fields.issuedAt ?? Date.now();
  const notOnOrAfter = fields.notOnOrAfter ?? now + 5 * 60 * 1000;
  const id = fields.assertionId ?? newSamlId();
  const inResponseTo = fields.inResponseTo === null ? '' : ` InResponseTo="${escapeXml(fields.inResponseTo)}"`;
  const audiences =
    fields.audiences === null
      ? ''
      : `<saml:AudienceRestriction>${(fields.audiences ?? []).map((a) => `<saml:Audience>${escapeXml(a)}</saml:Audience>`).join('')}</saml:AudienceRestriction>`;
  const conditions =
    fields.conditions === false
      ? ''
      : `<saml:Conditions NotBefore="${iso(fields.notBefore ?? now - 60 * 1000)}" NotOnOrAfter="${iso(notOnOrAfter)}">${audiences}</saml:Conditions>`;
  const attributes = Object.entries(fields.attributes ?? {})
    .map(
      ([name, values]) =>
        `<saml:Attribute Name="${escapeXml(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:uri">${values
          .map((value) => `<saml:AttributeValue>${escapeXml(value)}</saml:AttributeValue>`)
          .join('')}</saml:Attribute>`,
    )
    .join('');
  return (
    `<saml:Assertion xmlns:saml="${SAML_ASSERTION}" ID="${id}" Version="2.0" IssueInstant="${iso(now)}">` +
    `<saml:Issuer>${escapeXml(fields.issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="${fields.nameIdFormat ?? 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified'}">${escapeXml(fields.nameId)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="${fields.confirmationMethod ?? 'urn:oasis:names:tc:SAML:2.0:cm:bearer'}">` +
    `<saml:SubjectConfirmationData NotOnOrAfter="${iso(fields.confirmationNotOnOrAfter ?? notOnOrAfter)}" Recipient="${escapeXml(fields.recipient)}"${inResponseTo}/>` +
    `</saml:SubjectConfirmation></saml:Subject>` +
    conditions +
    `<saml:AuthnStatement AuthnInstant="${iso(fields.authnInstant ?? now)}" SessionIndex="${id}"><saml:AuthnContext><saml:AuthnContextClassRef>${escapeXml(fields.authnContextClassRef ?? 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport')}</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attributes === '' ? '' : `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>`) +
    `</saml:Assertion>`
  );
}

/** A `<samlp:Response>` (SAML Core 3.3.3) around the given assertion XML (signed or not). */
export function responseXml(fields: ResponseFields, assertion: string): string {
  const now = fields.issuedAt ?? Date.now();
  const destination = fields.destination === null ? '' : ` Destination="${escapeXml(fields.destination)}"`;
  const inResponseTo = fields.inResponseTo === null ? '' : ` InResponseTo="${escapeXml(fields.inResponseTo)}"`;
  const second = fields.secondStatusCode ? `<samlp:StatusCode Value="${fields.secondStatusCode}"/>` : '';
  return (
    `<samlp:Response xmlns:samlp="${SAML_PROTOCOL}" xmlns:saml="${SAML_ASSERTION}" ID="${fields.responseId ?? newSamlId()}" Version="2.0" IssueInstant="${iso(now)}"${destination}${inResponseTo}>` +
    `<saml:Issuer>${escapeXml(fields.issuer)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="${fields.statusCode ?? STATUS_SUCCESS}">${second}</samlp:StatusCode></samlp:Status>` +
    assertion +
    `</samlp:Response>`
  );
}

/**
 * Signs the element of `localName` that is the document's root or a child of it (enveloped
 * signature, exclusive canonicalization, the signature placed right after that element's
 * Issuer, as the SAML schema requires).
 */
export function signElement(xml: string, localName: string, options: SignOptions): string {
  const signer = new SignedXml({
    privateKey: options.credential.privateKeyPem,
    publicCert: options.credential.certificatePem,
    signatureAlgorithm: options.signatureAlgorithm ?? RSA_SHA256,
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  const element = `/*[local-name(.)='${localName}'] | /*/*[local-name(.)='${localName}']`;
  signer.addReference({
    xpath: `(${element})[1]`,
    digestAlgorithm: options.digestAlgorithm ?? DIGEST_SHA256,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
  });
  if (options.keyInfo === false) signer.getKeyInfoContent = () => null;
  else {
    const body = options.credential.certificateBody;
    signer.getKeyInfoContent = ({ prefix }) =>
      `<${prefix}:X509Data><${prefix}:X509Certificate>${body}</${prefix}:X509Certificate></${prefix}:X509Data>`;
  }
  signer.computeSignature(xml, {
    prefix: 'ds',
    location: { reference: `(${element})[1]/*[local-name(.)='Issuer']`, action: 'after' },
  });
  return signer.getSignedXml();
}

/** The POST binding's encoding (SAML Bindings 3.5.4). */
export function encodeForPost(xml: string): string {
  return Buffer.from(xml, 'utf8').toString('base64');
}
