import { Namespaces } from './saml-names.js';
import { samlRefusal } from './saml-refusals.js';
import { childElements, descendantsByLocalName } from './saml-xml.js';

/** A response whose elements sit where SAML puts them, and nowhere else. */
export interface ResponseShape {
  response: Element;
  assertion: Element;
  /** The `<ds:Signature>` that is a child of the Response, if any. */
  responseSignature: Element | undefined;
  /** The `<ds:Signature>` that is a child of the Assertion, if any. */
  assertionSignature: Element | undefined;
}

/**
 * Checks the positions of the elements a signature-wrapping attack moves around (XSW1-8,
 * Somorovsky et al., "On Breaking SAML", 2012), before any signature is looked at:
 * - the root is a `samlp:Response`, and no other element anywhere is called `Response`;
 * - there is exactly one element called `Assertion` in the whole document, in any
 *   namespace, and it is a child of the root (SAML Profiles 4.1.4.2 allows several; a
 *   browser sign-in needs one, and one is what a wrapping attack must duplicate);
 * - no `EncryptedAssertion` (this is the plain response's shape: with an encryption key the
 *   adapter takes encrypted-response-shape.ts instead; without one, refusing it clearly is
 *   better than failing on "no assertion") and no `EncryptedID` (not supported);
 * - a `Signature` appears only as a child of the Response or of the Assertion, at most
 *   once each (a signature hidden in `Extensions`, `Object` or `SubjectConfirmationData`
 *   is what XSW shapes carry).
 */
export function checkResponseShape(document: Document): ResponseShape {
  const response = document.documentElement;
  if (response.namespaceURI !== Namespaces.protocol || response.localName !== 'Response') {
    throw samlRefusal('idp.assertion_invalid');
  }
  if (descendantsByLocalName(document, 'EncryptedAssertion').length > 0) throw samlRefusal('idp.assertion_encrypted');
  if (descendantsByLocalName(document, 'EncryptedID').length > 0) throw samlRefusal('idp.assertion_encrypted');
  if (descendantsByLocalName(document, 'Response').length !== 1) throw samlRefusal('idp.assertion_invalid');

  const assertions = descendantsByLocalName(document, 'Assertion');
  const [assertion] = childElements(response, Namespaces.assertion, 'Assertion');
  if (assertions.length !== 1 || !assertion || assertions[0] !== assertion) throw samlRefusal('idp.assertion_invalid');

  const responseSignatures = childElements(response, Namespaces.signature, 'Signature');
  const assertionSignatures = childElements(assertion, Namespaces.signature, 'Signature');
  const allSignatures = descendantsByLocalName(document, 'Signature');
  if (
    responseSignatures.length > 1 ||
    assertionSignatures.length > 1 ||
    allSignatures.length !== responseSignatures.length + assertionSignatures.length
  ) {
    throw samlRefusal('idp.assertion_invalid');
  }
  return {
    response,
    assertion,
    responseSignature: responseSignatures[0],
    assertionSignature: assertionSignatures[0],
  };
}
