import { Namespaces } from './saml-names.js';
import { metadataRefusal } from './saml-refusals.js';
import { attributeOf, childElements } from './saml-xml.js';
import { checkAlgorithms, verifyEnvelopedSignature } from './signed-parts.js';
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
  try {
    // Read back from the signed bytes, with the configured certificate only (never KeyInfo's).
    return verifyEnvelopedSignature(xml, root, signature, [certificate]).element;
  } catch {
    throw metadataRefusal('Its signature does not verify with MetadataSigningCertificate.');
  }
}
