import { SignedXml } from 'xml-crypto';
import type { ResponseShape } from './response-shape.js';
import { Namespaces } from './saml-names.js';
import { samlRefusal } from './saml-refusals.js';
import { attributeOf, childElements, parseSamlXml } from './saml-xml.js';
import type { SigningCertificate } from './signing-certificate.js';

/** What the identity provider's signatures cover, read back from the bytes they cover. */
export interface SignedParts {
  /** The Response as signed, when its own signature verified. */
  response: Element | undefined;
  /** The Assertion as signed: by its own signature, or as a child of the signed Response. */
  assertion: Element;
  /** True when the Assertion carries its own valid signature. */
  assertionSigned: boolean;
  /** The certificates whose keys made the valid signatures. */
  signers: SigningCertificate[];
}

const SIGNATURE_ALGORITHMS = new Set([
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512',
]);
const DIGEST_ALGORITHMS = new Set([
  'http://www.w3.org/2001/04/xmlenc#sha256',
  'http://www.w3.org/2001/04/xmlenc#sha512',
]);
const CANONICALIZATIONS = new Set([
  'http://www.w3.org/2001/10/xml-exc-c14n#',
  'http://www.w3.org/2001/10/xml-exc-c14n#WithComments',
  'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
  'http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments',
]);
const TRANSFORMS = new Set([...CANONICALIZATIONS, 'http://www.w3.org/2000/09/xmldsig#enveloped-signature']);

/**
 * Verifies the signatures of a response with the metadata's certificates only (a
 * certificate inside the message's KeyInfo is never trusted) and returns the signed
 * elements *as signed*: the canonical bytes each signature covers, parsed again, so every
 * value the caller reads is one the identity provider signed (xml-crypto's
 * `getSignedReferences`; SAML Core 5.4.2: a signature references its own element by ID).
 *
 * Each signature must use SHA-256 or SHA-512 (SHA-1 is refused, for the signature and
 * every digest), hold exactly one reference, to the ID of the element it sits in, and
 * verify: a broken signature is a refusal even when the other one verifies. With
 * `requireSignedAssertion` the Assertion needs its own signature (a signed Response
 * around an unsigned Assertion is not enough); otherwise at least the Response is signed.
 */
export function readSignedParts(
  xml: string,
  shape: ResponseShape,
  certificates: readonly SigningCertificate[],
  requireSignedAssertion: boolean,
): SignedParts {
  if (!shape.responseSignature && !shape.assertionSignature) throw samlRefusal('idp.signature_missing');
  if (requireSignedAssertion && !shape.assertionSignature) throw samlRefusal('idp.assertion_unsigned');
  const signers: SigningCertificate[] = [];
  let response: Element | undefined;
  let assertion: Element | undefined;
  if (shape.responseSignature) {
    const signed = verifyEnvelopedSignature(xml, shape.response, shape.responseSignature, certificates);
    signers.push(signed.signer);
    response = signed.element;
    const [inside] = childElements(signed.element, Namespaces.assertion, 'Assertion');
    if (!inside) throw samlRefusal('idp.assertion_invalid');
    assertion = inside;
  }
  if (shape.assertionSignature) {
    const signed = verifyEnvelopedSignature(xml, shape.assertion, shape.assertionSignature, certificates);
    signers.push(signed.signer);
    assertion = signed.element;
  }
  if (!assertion) throw samlRefusal('idp.signature_missing');
  return { response, assertion, assertionSigned: shape.assertionSignature !== undefined, signers };
}

/**
 * Verifies one enveloped signature, a child of `element`, with the metadata's
 * certificates only, and returns `element` as signed (its canonical bytes parsed again)
 * with the certificate that verified it. Used for responses, assertions and POSTed
 * logout messages alike.
 */
export function verifyEnvelopedSignature(
  xml: string,
  element: Element,
  signature: Element,
  certificates: readonly SigningCertificate[],
): { element: Element; signer: SigningCertificate } {
  const id = attributeOf(element, 'ID');
  if (id === undefined || id === '') throw samlRefusal('idp.assertion_invalid');
  checkAlgorithms(signature, id);
  for (const certificate of certificates) {
    // getCertFromKeyInfo returns nothing: only the metadata's key is used, never KeyInfo's.
    const verifier = new SignedXml({ publicCert: certificate.pem, getCertFromKeyInfo: () => null });
    let verified = false;
    try {
      verifier.loadSignature(signature);
      verified = verifier.checkSignature(xml);
    } catch {
      // xml-crypto throws for a wrong key or digest, with message content in the text: never logged.
      verified = false;
    }
    const [signed] = verified ? verifier.getSignedReferences() : [];
    if (signed === undefined) continue;
    const signedElement = parseSamlXml(signed, () => samlRefusal('idp.signature_invalid')).documentElement;
    if (
      signedElement.namespaceURI !== element.namespaceURI ||
      signedElement.localName !== element.localName ||
      attributeOf(signedElement, 'ID') !== id
    ) {
      throw samlRefusal('idp.signature_invalid');
    }
    return { element: signedElement, signer: certificate };
  }
  throw samlRefusal('idp.signature_invalid');
}

/**
 * The algorithms and the reference, read from the signature before it is verified: one
 * SignedInfo, RSA-SHA256/512, a known canonicalization, exactly one Reference, to `#id`,
 * a SHA-256/512 digest, and only canonicalization and enveloped-signature transforms.
 * Also used for signed metadata, whose caller turns the refusal into its own.
 */
export function checkAlgorithms(signature: Element, id: string): void {
  const [signedInfo, ...extraSignedInfo] = childElements(signature, Namespaces.signature, 'SignedInfo');
  if (!signedInfo || extraSignedInfo.length > 0) throw samlRefusal('idp.signature_invalid');
  const algorithm = (name: string) => {
    const [child] = childElements(signedInfo, Namespaces.signature, name);
    return child ? attributeOf(child, 'Algorithm') : undefined;
  };
  if (!SIGNATURE_ALGORITHMS.has(algorithm('SignatureMethod') ?? '')) {
    throw samlRefusal('idp.signature_algorithm_refused');
  }
  if (!CANONICALIZATIONS.has(algorithm('CanonicalizationMethod') ?? '')) throw samlRefusal('idp.signature_invalid');
  const references = childElements(signedInfo, Namespaces.signature, 'Reference');
  const [reference] = references;
  if (!reference || references.length !== 1 || attributeOf(reference, 'URI') !== `#${id}`) {
    throw samlRefusal('idp.signature_invalid');
  }
  const [digestMethod] = childElements(reference, Namespaces.signature, 'DigestMethod');
  if (!DIGEST_ALGORITHMS.has((digestMethod && attributeOf(digestMethod, 'Algorithm')) ?? '')) {
    throw samlRefusal('idp.signature_algorithm_refused');
  }
  const [transforms] = childElements(reference, Namespaces.signature, 'Transforms');
  for (const transform of transforms ? childElements(transforms, Namespaces.signature, 'Transform') : []) {
    if (!TRANSFORMS.has(attributeOf(transform, 'Algorithm') ?? '')) throw samlRefusal('idp.signature_invalid');
  }
}
