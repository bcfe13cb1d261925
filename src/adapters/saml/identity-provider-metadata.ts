import { Bindings, Namespaces } from './saml-names.js';
import { metadataRefusal } from './saml-refusals.js';
import { attributeOf, childElements, descendants, parseSamlXml } from './saml-xml.js';
import { readSigningCertificate, type SigningCertificate } from './signing-certificate.js';

/** What Gatehouse uses of an identity provider's metadata (SAML Metadata 2.4.3, IDPSSODescriptor). */
export interface IdentityProviderMetadata {
  entityId: string;
  /** The SingleSignOnService location for the HTTP-Redirect binding. */
  singleSignOnUrl: string;
  /** Every signing certificate: during a key rollover the metadata names the old and the new one. */
  signingCertificates: SigningCertificate[];
}

/**
 * Reads an identity provider's metadata document (one `EntityDescriptor`). Refused, with
 * a reason for the operator that quotes nothing of the document: a DTD, another root, no
 * IDPSSODescriptor for SAML 2.0, no HTTP-Redirect SingleSignOnService, a `validUntil` in
 * the past (SAML Metadata 2.1.2), a demand for signed AuthnRequests (Gatehouse holds no
 * signing key), and above all **no signing certificate**: samlify would then trust a
 * certificate carried inside the message itself, which anyone can make.
 */
export function readIdentityProviderMetadata(xml: string, now: number): IdentityProviderMetadata {
  const root = parseSamlXml(xml, () =>
    metadataRefusal('It is not a well-formed XML document without a DTD.'),
  ).documentElement;
  if (root.namespaceURI !== Namespaces.metadata || root.localName !== 'EntityDescriptor') {
    throw metadataRefusal(
      'Its root is not a SAML 2.0 EntityDescriptor (an aggregate of several entities is not accepted).',
    );
  }
  const entityId = attributeOf(root, 'entityID') ?? '';
  if (entityId === '' || entityId.length > 1024) throw metadataRefusal('It names no entityID.');
  const validUntil = attributeOf(root, 'validUntil');
  if (validUntil !== undefined && !(Date.parse(validUntil) > now)) {
    throw metadataRefusal('Its validUntil lies in the past, or is not a date.');
  }
  const descriptor = childElements(root, Namespaces.metadata, 'IDPSSODescriptor').find((candidate) =>
    (attributeOf(candidate, 'protocolSupportEnumeration') ?? '').split(/\s+/).includes(Namespaces.protocol),
  );
  if (!descriptor) throw metadataRefusal('It has no IDPSSODescriptor supporting SAML 2.0.');
  if (attributeOf(descriptor, 'WantAuthnRequestsSigned') === 'true') {
    throw metadataRefusal(
      'It asks for signed AuthnRequests, which Gatehouse does not send (no service-provider key is configured).',
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
  return { entityId, singleSignOnUrl, signingCertificates };
}
