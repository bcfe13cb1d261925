/**
 * Federation metadata aggregates (an `EntitiesDescriptor` of many entities, SAML Metadata
 * 2.3.1), shaped like those of research and education federations (InCommon, eduGAIN):
 * each entity with its organization, contacts, a user-interface extension and a
 * certificate, identity providers and service providers mixed, groups nested when asked,
 * the whole signed by the federation with xml-crypto. For the tests and the benchmark;
 * nothing in src/ imports it.
 */
import { randomBytes } from 'node:crypto';
import { SignedXml } from 'xml-crypto';
import { escapeXml, RSA_SHA256, DIGEST_SHA256 } from './saml-response.js';
import type { SigningCredential } from './signing-credential.js';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const MDUI = 'urn:oasis:names:tc:SAML:metadata:ui';
const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';

/** One identity provider of an aggregate: the values Gatehouse reads. */
export interface FederatedIdentityProvider {
  entityId: string;
  ssoUrl: string;
  certificateBodies: string[];
}

/** An entity as federations publish it, with the descriptive parts that make up most of an aggregate's size. */
export function entityXml(
  entity: { entityId: string; role: 'idp' | 'sp'; certificateBodies: string[]; location: string },
  validUntil?: string,
): string {
  const keys = entity.certificateBodies
    .map(
      (body) =>
        `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${body}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
    )
    .join('');
  const ui =
    `<md:Extensions><mdui:UIInfo><mdui:DisplayName xml:lang="en">${escapeXml(entity.entityId)}</mdui:DisplayName>` +
    `<mdui:Description xml:lang="en">A member of the federation, described for discovery services and consent pages.</mdui:Description>` +
    `<mdui:InformationURL xml:lang="en">${escapeXml(entity.location)}/about</mdui:InformationURL>` +
    `<mdui:PrivacyStatementURL xml:lang="en">${escapeXml(entity.location)}/privacy</mdui:PrivacyStatementURL></mdui:UIInfo></md:Extensions>`;
  const role =
    entity.role === 'idp'
      ? `<md:IDPSSODescriptor protocolSupportEnumeration="${PROTOCOL}">${ui}${keys}` +
        `<md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>` +
        `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${escapeXml(entity.location)}/sso"/>` +
        `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${escapeXml(entity.location)}/sso/post"/>` +
        `</md:IDPSSODescriptor>`
      : `<md:SPSSODescriptor protocolSupportEnumeration="${PROTOCOL}">${ui}${keys}` +
        `<md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${escapeXml(entity.location)}/acs" index="0"/>` +
        `</md:SPSSODescriptor>`;
  return (
    `<md:EntityDescriptor entityID="${escapeXml(entity.entityId)}"${validUntil ? ` validUntil="${validUntil}"` : ''}>` +
    role +
    `<md:Organization><md:OrganizationName xml:lang="en">Member ${escapeXml(entity.entityId)}</md:OrganizationName>` +
    `<md:OrganizationDisplayName xml:lang="en">Member organization</md:OrganizationDisplayName>` +
    `<md:OrganizationURL xml:lang="en">${escapeXml(entity.location)}</md:OrganizationURL></md:Organization>` +
    `<md:ContactPerson contactType="technical"><md:GivenName>Identity</md:GivenName><md:SurName>Team</md:SurName>` +
    `<md:EmailAddress>mailto:identity@example.org</md:EmailAddress></md:ContactPerson>` +
    `</md:EntityDescriptor>`
  );
}

/** An `EntitiesDescriptor` around the given entity and group XML. */
export function entitiesXml(children: string[], options: { name?: string; validUntil?: string } = {}): string {
  const id = `_${randomBytes(16).toString('hex')}`;
  return (
    `<md:EntitiesDescriptor xmlns:md="${MD}" xmlns:ds="${DS}" xmlns:mdui="${MDUI}" ID="${id}" Name="${escapeXml(options.name ?? 'urn:example:federation')}"` +
    `${options.validUntil ? ` validUntil="${options.validUntil}"` : ''}>` +
    children.join('') +
    `</md:EntitiesDescriptor>`
  );
}

/**
 * An aggregate of `count` filler entities (every tenth an identity provider, the rest
 * service providers, all sharing `fillerCertificate`), with `members` placed among them:
 * about 4.5 KB per filler entity.
 */
export function aggregateXml(options: {
  members: FederatedIdentityProvider[];
  count: number;
  fillerCertificate: string;
  validUntil?: string;
}): string {
  const fillers = Array.from({ length: options.count }, (_, index) =>
    entityXml({
      entityId: `https://member-${index}.example.org/${index % 10 === 0 ? 'idp' : 'sp'}`,
      role: index % 10 === 0 ? 'idp' : 'sp',
      certificateBodies: [options.fillerCertificate],
      location: `https://member-${index}.example.org`,
    }),
  );
  options.members.forEach((member, index) => {
    const at = Math.floor(((index + 1) * fillers.length) / (options.members.length + 1));
    fillers.splice(at, 0, entityXml({ ...member, role: 'idp', location: new URL(member.ssoUrl).origin }));
  });
  return entitiesXml(fillers, options.validUntil ? { validUntil: options.validUntil } : {});
}

/**
 * Signs the document's root (an enveloped signature, RSA-SHA256, exclusive
 * canonicalization, referencing the root's ID), placed as its first child as the metadata
 * schema wants it.
 */
export function signMetadata(xml: string, credential: SigningCredential): string {
  const signer = new SignedXml({
    privateKey: credential.privateKeyPem,
    publicCert: credential.certificatePem,
    signatureAlgorithm: RSA_SHA256,
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signer.addReference({
    xpath: '/*',
    digestAlgorithm: DIGEST_SHA256,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
  });
  signer.computeSignature(xml, { prefix: 'ds', location: { reference: '/*', action: 'prepend' } });
  return signer.getSignedXml();
}
