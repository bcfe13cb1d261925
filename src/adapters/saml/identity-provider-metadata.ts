import { Bindings, Namespaces } from './saml-names.js';
import { metadataRefusal } from './saml-refusals.js';
import { attributeOf, childElements, descendants, parseSamlXml } from './saml-xml.js';
import { checkValidUntil, selectEntity } from './federation-metadata.js';
import { signedMetadataRoot } from './metadata-signature.js';
import { readSigningCertificate, type SigningCertificate } from './signing-certificate.js';

/** What Gatehouse uses of an identity provider's metadata (SAML Metadata 2.4.3, IDPSSODescriptor). */
export interface IdentityProviderMetadata {
  entityId: string;
  /** The SingleSignOnService location for the HTTP-Redirect binding. */
  singleSignOnUrl: string;
  /** Every signing certificate: during a key rollover the metadata names the old and the new one. */
  signingCertificates: SigningCertificate[];
  /** The SingleLogoutService for the HTTP-Redirect binding, when it lists one (SAML Metadata 2.2.2). */
  singleLogout?: { location: string; responseLocation: string };
}

/** How far a metadata document is trusted, which of its entities is the identity provider, and what it may ask of us. */
export interface MetadataTrust {
  /** `IdpEntityId`: the entity to use in an aggregate; empty: the only identity provider it holds. */
  idpEntityId: string;
  /** `MetadataSigningCertificate`: when set, the document's root must carry a valid signature by it. */
  signingCertificate: SigningCertificate | undefined;
  /** True when this service provider signs its AuthnRequests: metadata that wants them signed is then accepted. */
  signsAuthnRequests: boolean;
}

/**
 * Reads an identity provider's metadata document: one `EntityDescriptor`, or a federation
 * aggregate (`EntitiesDescriptor`) from which `trust.idpEntityId` selects the entity (see
 * selectEntity). With a metadata signing certificate, the root's signature is verified
 * first and only the signed content is read. Refused, with a reason for the operator that
 * quotes nothing of the document: a DTD, another root, no IDPSSODescriptor for SAML 2.0,
 * no HTTP-Redirect SingleSignOnService, a `validUntil` in the past (SAML Metadata 2.1.2),
 * a demand for signed AuthnRequests when this service provider does not sign them
 * (SignAuthnRequests), and above all **no signing certificate**: samlify would then trust a
 * certificate carried inside the message itself, which anyone can make.
 *
 * Only strings and certificates are returned: the document's DOM, tens of MB for an
 * aggregate, is garbage as soon as this returns.
 */
export function readIdentityProviderMetadata(
  xml: string,
  now: number,
  trust: MetadataTrust = { idpEntityId: '', signingCertificate: undefined, signsAuthnRequests: false },
): IdentityProviderMetadata {
  const parsed = parseSamlXml(xml, () =>
    metadataRefusal('It is not a well-formed XML document without a DTD.'),
  ).documentElement;
  const root = trust.signingCertificate ? signedMetadataRoot(xml, parsed, trust.signingCertificate) : parsed;
  const entity = selectEntity(root, trust.idpEntityId, now);
  const entityId = attributeOf(entity, 'entityID') ?? '';
  if (entityId === '' || entityId.length > 1024) throw metadataRefusal('It names no entityID.');
  if (entity !== root) checkValidUntil(entity, now);
  const descriptor = childElements(entity, Namespaces.metadata, 'IDPSSODescriptor').find((candidate) =>
    (attributeOf(candidate, 'protocolSupportEnumeration') ?? '').split(/\s+/).includes(Namespaces.protocol),
  );
  if (!descriptor) throw metadataRefusal('It has no IDPSSODescriptor supporting SAML 2.0.');
  if (attributeOf(descriptor, 'WantAuthnRequestsSigned') === 'true' && !trust.signsAuthnRequests) {
    throw metadataRefusal(
      'It asks for signed AuthnRequests (WantAuthnRequestsSigned): set Saml2:SignAuthnRequests to true, with Saml2:SigningCertificate and Saml2:SigningKey.',
    );
  }
  const singleSignOnUrl = childElements(descriptor, Namespaces.metadata, 'SingleSignOnService')
    .filter((service) => attributeOf(service, 'Binding') === Bindings.redirect)
    .map((service) => attributeOf(service, 'Location') ?? '')
    .find((location) => /^https?:\/\//.test(location) && URL.canParse(location));
  if (!singleSignOnUrl) throw metadataRefusal('It has no SingleSignOnService for the HTTP-Redirect binding.');

  const signingCertificates: SigningCertificate[] = [];
  for (const keyDescriptor of childElements(descriptor, Namespaces.metadata, 'KeyDescriptor')) {
    // SAML Metadata 2.4.1.1: a KeyDescriptor without `use` serves both signing and encryption.
    if ((attributeOf(keyDescriptor, 'use') ?? 'signing') !== 'signing') continue;
    for (const element of descendants(keyDescriptor, Namespaces.signature, 'X509Certificate')) {
      const certificate = readSigningCertificate(element.textContent ?? '');
      if (!certificate) throw metadataRefusal('One of its signing certificates cannot be read.');
      if (!signingCertificates.some((known) => known.body === certificate.body)) signingCertificates.push(certificate);
    }
  }
  if (signingCertificates.length === 0) {
    throw metadataRefusal('It names no signing certificate, so no response could be verified against it.');
  }
  const singleLogout = childElements(descriptor, Namespaces.metadata, 'SingleLogoutService')
    .filter((service) => attributeOf(service, 'Binding') === Bindings.redirect)
    .map((service) => {
      const location = attributeOf(service, 'Location') ?? '';
      // SAML Metadata 2.2.2: responses go to ResponseLocation when it is given.
      return { location, responseLocation: attributeOf(service, 'ResponseLocation') ?? location };
    })
    .find(({ location, responseLocation }) => [location, responseLocation].every(isHttpUrl));
  return { entityId, singleSignOnUrl, signingCertificates, ...(singleLogout ? { singleLogout } : {}) };
}

function isHttpUrl(value: string): boolean {
  return /^https?:\/\//.test(value) && URL.canParse(value);
}
