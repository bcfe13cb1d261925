import { SignedXml } from 'xml-crypto';
import { Namespaces } from './saml-names.js';
import { metadataRefusal } from './saml-refusals.js';
import { attributeOf, childElements, parseSamlXml } from './saml-xml.js';
import { checkAlgorithms } from './signed-parts.js';
import type { SigningCertificate } from './signing-certificate.js';

/**
 * The root element of a metadata document *as signed* by `certificate` (SAML Metadata 3:
 * an enveloped signature on the root, referencing its ID; for a federation aggregate, the
 * `EntitiesDescriptor` the federation signs). The same care as for responses (see
 * SignedParts): exactly one `Signature`, a child of the root; SHA-256 or better, one
 * reference, to the root's ID; the configured certificate only, never KeyInfo's; and the
 * element returned is parsed again from the bytes the signature covers, so nothing outside
 * them (a wrapped or appended entity) is ever read. Anything else is `idp.metadata_invalid`.
 */
export function signedMetadataRoot(xml: string, root: Element, certificate: SigningCertificate): Element {
  const signatures = childElements(root, Namespaces.signature, 'Signature');
  if (signatures.length === 0) {
    throw metadataRefusal('It is not signed, and MetadataSigningCertificate asks for a signed document.');
  }
  const [signature] = signatures;
  const id = attributeOf(root, 'ID');
  if (signatures.length > 1 || !signature || id === undefined || id === '') {
    throw metadataRefusal('Its signature does not have the shape of an enveloped signature of its root element.');
  }
  try {
    checkAlgorithms(signature, id);
  } catch {
    throw metadataRefusal(
      'Its signature uses an algorithm or a reference Gatehouse refuses (SHA-256 or better, one reference to the root).',
    );
  }
  // getCertFromKeyInfo returns nothing: only the configured certificate is used.
  const verifier = new SignedXml({ publicCert: certificate.pem, getCertFromKeyInfo: () => null });
  let verified = false;
  try {
    verifier.loadSignature(signature);
    verified = verifier.checkSignature(xml);
  } catch {
    verified = false; // xml-crypto's messages quote the document: never passed on
  }
  const [signed] = verified ? verifier.getSignedReferences() : [];
  if (signed === undefined) {
    throw metadataRefusal('Its signature does not verify with MetadataSigningCertificate.');
  }
  const signedRoot = parseSamlXml(signed, () => metadataRefusal('Its signed content cannot be read.')).documentElement;
  if (
    signedRoot.namespaceURI !== root.namespaceURI ||
    signedRoot.localName !== root.localName ||
    attributeOf(signedRoot, 'ID') !== id
  ) {
    throw metadataRefusal('Its signature does not cover its root element.');
  }
  return signedRoot;
}
