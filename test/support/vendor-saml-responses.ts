import { randomBytes, randomUUID } from 'node:crypto';
import { escapeXml, signElement } from '../../scripts/saml/saml-response.js';
import type { SigningCredential } from '../../scripts/saml/signing-credential.js';

/**
 * Responses written the way four identity products write them (element prefixes, ID
 * styles, NameID formats, attribute names and value types, which element they sign by
 * default), from their documentation and captured traces, and signed with xml-crypto
 * (no samlify code on this side). They carry made-up people, tenants and object IDs.
 */

/** Where a response goes and what it answers. */
export interface Delivery {
  issuer: string;
  audience: string;
  acsUrl: string;
  inResponseTo: string;
  credential: SigningCredential;
}

export type Vendor = 'ADFS' | 'Entra ID' | 'Okta' | 'Google Workspace';

const iso = (ms: number) => new Date(ms).toISOString();
const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
const XS = 'xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';

/** The issuers the products use, in their own shapes: the identity provider's metadata names the same. */
export const VENDOR_ISSUERS: Record<Vendor, string> = {
  ADFS: 'http://adfs.contoso.example/adfs/services/trust',
  'Entra ID': 'https://sts.windows.net/7f1d5c2e-3a4b-4c6d-8e9f-0a1b2c3d4e5f/',
  Okta: 'http://www.okta.com/exk1a2b3c4d5e6f7g8h9',
  'Google Workspace': 'https://accounts.google.com/o/saml2?idpid=C01ab2cd3',
};

export const ENTRA_OBJECT_ID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
export const ENTRA_GROUP_IDS = ['a1b2c3d4-0000-4000-8000-000000000001', 'a1b2c3d4-0000-4000-8000-000000000002'];
export const ENTRA_PAIRWISE_ID = 'kD4Qe2v1bX0o9m3Pq7Rs5Tu8Vw1Xy2Za3Bc4De5Fg6';

interface Window {
  now: number;
  until: number;
}

const window = (): Window => ({ now: Date.now(), until: Date.now() + 60 * 60 * 1000 });

/**
 * AD FS 2016-2022 with `SamlResponseSignature = MessageAndAssertion`: the Assertion in the
 * default namespace, a `_`-GUID ID, a transient NameID, claims under the WS-Federation and
 * Microsoft URIs without a NameFormat, roles as several values; both elements signed.
 */
export function adfsResponse(to: Delivery): string {
  const { now, until } = window();
  const id = `_${randomUUID()}`;
  const attribute = (name: string, values: string[]) =>
    `<Attribute Name="${name}">${values.map((value) => `<AttributeValue>${escapeXml(value)}</AttributeValue>`).join('')}</Attribute>`;
  const assertion =
    `<Assertion ID="${id}" IssueInstant="${iso(now)}" Version="2.0" xmlns="${ASSERTION}">` +
    `<Issuer>${escapeXml(to.issuer)}</Issuer>` +
    `<Subject><NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:transient">${escapeXml(`_${randomUUID()}`)}</NameID>` +
    `<SubjectConfirmation Method="${BEARER}"><SubjectConfirmationData InResponseTo="${to.inResponseTo}" NotOnOrAfter="${iso(now + 5 * 60 * 1000)}" Recipient="${escapeXml(to.acsUrl)}" /></SubjectConfirmation></Subject>` +
    `<Conditions NotBefore="${iso(now - 1000)}" NotOnOrAfter="${iso(until)}"><AudienceRestriction><Audience>${escapeXml(to.audience)}</Audience></AudienceRestriction></Conditions>` +
    `<AttributeStatement>` +
    attribute('http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn', ['ada.admin@contoso.example']) +
    attribute('http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name', ['Ada Admin']) +
    attribute('http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', ['ada@contoso.example']) +
    attribute('http://schemas.microsoft.com/ws/2008/06/identity/claims/role', ['Administrator', 'Domain Users']) +
    `</AttributeStatement>` +
    `<AuthnStatement AuthnInstant="${iso(now - 2000)}" SessionIndex="${id}"><AuthnContext><AuthnContextClassRef>urn:federation:authentication:windows</AuthnContextClassRef></AuthnContext></AuthnStatement>` +
    `</Assertion>`;
  const signedAssertion = signElement(assertion, 'Assertion', { credential: to.credential });
  const response =
    `<samlp:Response ID="_${randomUUID()}" Version="2.0" IssueInstant="${iso(now)}" Destination="${escapeXml(to.acsUrl)}" Consent="urn:oasis:names:tc:SAML:2.0:consent:unspecified" InResponseTo="${to.inResponseTo}" xmlns:samlp="${PROTOCOL}">` +
    `<Issuer xmlns="${ASSERTION}">${escapeXml(to.issuer)}</Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="${SUCCESS}" /></samlp:Status>` +
    signedAssertion +
    `</samlp:Response>`;
  return signElement(response, 'Response', { credential: to.credential });
}

/**
 * Microsoft Entra ID (enterprise application, default "Sign SAML assertion"): only the
 * Assertion signed, a persistent (pairwise) NameID, the tenant and object identifiers, the
 * user's groups as object IDs, `.../claims/name` holding the UPN.
 */
export function entraResponse(to: Delivery): string {
  const { now, until } = window();
  const id = `_${randomUUID()}`;
  const attribute = (name: string, values: string[]) =>
    `<Attribute Name="${name}">${values.map((value) => `<AttributeValue>${escapeXml(value)}</AttributeValue>`).join('')}</Attribute>`;
  const assertion =
    `<Assertion ID="${id}" IssueInstant="${iso(now)}" Version="2.0" xmlns="${ASSERTION}">` +
    `<Issuer>${escapeXml(to.issuer)}</Issuer>` +
    `<Subject><NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">${ENTRA_PAIRWISE_ID}</NameID>` +
    `<SubjectConfirmation Method="${BEARER}"><SubjectConfirmationData InResponseTo="${to.inResponseTo}" NotOnOrAfter="${iso(now + 5 * 60 * 1000)}" Recipient="${escapeXml(to.acsUrl)}"/></SubjectConfirmation></Subject>` +
    `<Conditions NotBefore="${iso(now - 5 * 60 * 1000)}" NotOnOrAfter="${iso(until)}"><AudienceRestriction><Audience>${escapeXml(to.audience)}</Audience></AudienceRestriction></Conditions>` +
    `<AttributeStatement>` +
    attribute('http://schemas.microsoft.com/identity/claims/tenantid', ['7f1d5c2e-3a4b-4c6d-8e9f-0a1b2c3d4e5f']) +
    attribute('http://schemas.microsoft.com/identity/claims/objectidentifier', [ENTRA_OBJECT_ID]) +
    attribute('http://schemas.microsoft.com/identity/claims/displayname', ['Ada Admin']) +
    attribute('http://schemas.microsoft.com/ws/2008/06/identity/claims/groups', ENTRA_GROUP_IDS) +
    attribute('http://schemas.microsoft.com/identity/claims/identityprovider', [to.issuer]) +
    attribute('http://schemas.microsoft.com/claims/authnmethodsreferences', [
      'http://schemas.microsoft.com/ws/2008/06/identity/authenticationmethod/password',
    ]) +
    attribute('http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname', ['Ada']) +
    attribute('http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname', ['Admin']) +
    attribute('http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', ['ada@contoso.example']) +
    attribute('http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name', ['ada.admin@contoso.example']) +
    `</AttributeStatement>` +
    `<AuthnStatement AuthnInstant="${iso(now - 2000)}" SessionIndex="${id}"><AuthnContext><AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</AuthnContextClassRef></AuthnContext></AuthnStatement>` +
    `</Assertion>`;
  const signedAssertion = signElement(assertion, 'Assertion', { credential: to.credential });
  return (
    `<samlp:Response ID="_${randomUUID()}" Version="2.0" IssueInstant="${iso(now)}" Destination="${escapeXml(to.acsUrl)}" InResponseTo="${to.inResponseTo}" xmlns:samlp="${PROTOCOL}">` +
    `<Issuer xmlns="${ASSERTION}">${escapeXml(to.issuer)}</Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="${SUCCESS}"/></samlp:Status>` +
    signedAssertion +
    `</samlp:Response>`
  );
}

/** `saml2p:` / `saml2:` prefixes (OpenSAML, which Okta and Google both build on), plain attribute names with typed values. */
function plainNamesResponse(
  to: Delivery,
  shape: {
    id: () => string;
    issuerFormat: boolean;
    nameIdFormat: string;
    nameId: string;
    attributes: Array<[name: string, nameFormat: string | undefined, type: string, values: string[]]>;
    authnContext: string;
    sign: 'response' | 'assertion';
  },
): string {
  const { now, until } = window();
  const id = shape.id();
  const issuer = `<saml2:Issuer${shape.issuerFormat ? ' Format="urn:oasis:names:tc:SAML:2.0:nameid-format:entity"' : ''}>${escapeXml(to.issuer)}</saml2:Issuer>`;
  const attributes = shape.attributes
    .map(
      ([name, nameFormat, type, values]) =>
        `<saml2:Attribute Name="${name}"${nameFormat ? ` NameFormat="${nameFormat}"` : ''}>${values
          .map((value) => `<saml2:AttributeValue ${XS} xsi:type="${type}">${escapeXml(value)}</saml2:AttributeValue>`)
          .join('')}</saml2:Attribute>`,
    )
    .join('');
  let assertion =
    `<saml2:Assertion ID="${id}" IssueInstant="${iso(now)}" Version="2.0" xmlns:saml2="${ASSERTION}">` +
    issuer +
    `<saml2:Subject><saml2:NameID Format="${shape.nameIdFormat}">${escapeXml(shape.nameId)}</saml2:NameID>` +
    `<saml2:SubjectConfirmation Method="${BEARER}"><saml2:SubjectConfirmationData InResponseTo="${to.inResponseTo}" NotOnOrAfter="${iso(now + 5 * 60 * 1000)}" Recipient="${escapeXml(to.acsUrl)}"/></saml2:SubjectConfirmation></saml2:Subject>` +
    `<saml2:Conditions NotBefore="${iso(now - 5 * 60 * 1000)}" NotOnOrAfter="${iso(until)}"><saml2:AudienceRestriction><saml2:Audience>${escapeXml(to.audience)}</saml2:Audience></saml2:AudienceRestriction></saml2:Conditions>` +
    `<saml2:AuthnStatement AuthnInstant="${iso(now - 2000)}" SessionIndex="${id}"><saml2:AuthnContext><saml2:AuthnContextClassRef>${shape.authnContext}</saml2:AuthnContextClassRef></saml2:AuthnContext></saml2:AuthnStatement>` +
    `<saml2:AttributeStatement>${attributes}</saml2:AttributeStatement>` +
    `</saml2:Assertion>`;
  if (shape.sign === 'assertion') assertion = signElement(assertion, 'Assertion', { credential: to.credential });
  const response =
    `<saml2p:Response Destination="${escapeXml(to.acsUrl)}" ID="${shape.id()}" InResponseTo="${to.inResponseTo}" IssueInstant="${iso(now)}" Version="2.0" xmlns:saml2p="${PROTOCOL}">` +
    issuer.replace('<saml2:Issuer', `<saml2:Issuer xmlns:saml2="${ASSERTION}"`) +
    `<saml2p:Status><saml2p:StatusCode Value="${SUCCESS}"/></saml2p:Status>` +
    assertion +
    `</saml2p:Response>`;
  return shape.sign === 'response' ? signElement(response, 'Response', { credential: to.credential }) : response;
}

const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

/**
 * Okta (a SAML 2.0 app whose "Assertion Signature" is set to Unsigned, "Response" Signed):
 * only the Response signed, `id`+digits IDs, an emailAddress NameID, attribute statements
 * under plain names (`email`, `firstName`, `lastName`, and a group attribute statement
 * `groups`) with the unspecified name format and `xs:string` values.
 */
export function oktaResponse(to: Delivery): string {
  const unspecified = 'urn:oasis:names:tc:SAML:2.0:attrname-format:unspecified';
  return plainNamesResponse(to, {
    id: () => `id${BigInt(`0x${randomBytes(8).toString('hex')}`)}`,
    issuerFormat: true,
    nameIdFormat: EMAIL_FORMAT,
    nameId: 'ada@example.com',
    attributes: [
      ['email', unspecified, 'xs:string', ['ada@example.com']],
      ['firstName', unspecified, 'xs:string', ['Ada']],
      ['lastName', unspecified, 'xs:string', ['Admin']],
      ['groups', unspecified, 'xs:string', ['Everyone', 'Administrators']],
    ],
    authnContext: 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport',
    sign: 'response',
  });
}

/**
 * Google Workspace (a custom SAML app with "Signed response" left unchecked, its default):
 * only the Assertion signed, `_`+hex IDs, an emailAddress NameID (primary email), the
 * attribute mappings and group membership under the names the administrator chose
 * (here `email`, `firstName`, `lastName`, `groups`), no name format, `xs:anyType` values.
 */
export function googleResponse(to: Delivery): string {
  return plainNamesResponse(to, {
    id: () => `_${randomBytes(16).toString('hex')}`,
    issuerFormat: false,
    nameIdFormat: EMAIL_FORMAT,
    nameId: 'ada@example.com',
    attributes: [
      ['email', undefined, 'xs:anyType', ['ada@example.com']],
      ['firstName', undefined, 'xs:anyType', ['Ada']],
      ['lastName', undefined, 'xs:anyType', ['Admin']],
      ['groups', undefined, 'xs:anyType', ['admins@example.com', 'staff@example.com']],
    ],
    authnContext: 'urn:oasis:names:tc:SAML:2.0:ac:classes:unspecified',
    sign: 'assertion',
  });
}
