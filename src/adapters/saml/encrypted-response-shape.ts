import { EncryptionNamespaces } from './encryption-algorithms.js';
import { Namespaces } from './saml-names.js';
import { samlRefusal } from './saml-refusals.js';
import { childElements, descendantsByLocalName } from './saml-xml.js';

/** A response carrying its assertion encrypted, its elements where SAML puts them. */
export interface EncryptedResponseShape {
  response: Element;
  encryptedAssertion: Element;
  /** The `<ds:Signature>` that is a child of the Response, if any. */
  responseSignature: Element | undefined;
}

/** A decrypted assertion, shaped as a signed assertion must be. */
export interface DecryptedAssertionShape {
  assertion: Element;
  /** The `<ds:Signature>` that is a child of the Assertion, if any. */
  signature: Element | undefined;
}

/** Whether the document carries an assertion encrypted anywhere: the adapter then takes the encrypted path. */
export function hasEncryptedAssertion(document: Document): boolean {
  return descendantsByLocalName(document, 'EncryptedAssertion').length > 0;
}

/**
 * The wrapping checks of response-shape.ts for a response whose assertion is encrypted:
 * a `samlp:Response` root and no other `Response`; exactly one `EncryptedAssertion` in the
 * whole document, a child of the root, and no plain `Assertion` anywhere (an encrypted
 * assertion beside a signed plain one is the wrapping shape of the encrypted case); one
 * `EncryptedData`, in it; `EncryptedKey`s only where XML Encryption and SAML Core 2.2.4
 * put them (in the EncryptedData's KeyInfo, or beside it); no `EncryptedID` outside; a
 * `Signature` only as a child of the Response, at most once.
 */
export function checkEncryptedResponseShape(document: Document): EncryptedResponseShape {
  const response = document.documentElement;
  if (response.namespaceURI !== Namespaces.protocol || response.localName !== 'Response') {
    throw samlRefusal('idp.assertion_invalid');
  }
  if (descendantsByLocalName(document, 'Response').length !== 1) throw samlRefusal('idp.assertion_invalid');
  if (descendantsByLocalName(document, 'Assertion').length > 0) throw samlRefusal('idp.assertion_invalid');
  if (descendantsByLocalName(document, 'EncryptedID').length > 0) throw samlRefusal('idp.assertion_invalid');

  const all = descendantsByLocalName(document, 'EncryptedAssertion');
  const [encryptedAssertion] = childElements(response, Namespaces.assertion, 'EncryptedAssertion');
  if (all.length !== 1 || !encryptedAssertion || all[0] !== encryptedAssertion) {
    throw samlRefusal('idp.assertion_invalid');
  }
  const data = descendantsByLocalName(document, 'EncryptedData');
  const [ownData] = childElements(encryptedAssertion, EncryptionNamespaces.xenc, 'EncryptedData');
  if (data.length !== 1 || !ownData || data[0] !== ownData) throw samlRefusal('idp.assertion_invalid');
  const [keyInfo] = childElements(ownData, Namespaces.signature, 'KeyInfo');
  const placedKeys = [
    ...(keyInfo ? childElements(keyInfo, EncryptionNamespaces.xenc, 'EncryptedKey') : []),
    ...childElements(encryptedAssertion, EncryptionNamespaces.xenc, 'EncryptedKey'),
  ];
  if (descendantsByLocalName(document, 'EncryptedKey').length !== placedKeys.length) {
    throw samlRefusal('idp.assertion_invalid');
  }

  const responseSignatures = childElements(response, Namespaces.signature, 'Signature');
  if (
    responseSignatures.length > 1 ||
    descendantsByLocalName(document, 'Signature').length !== responseSignatures.length
  ) {
    throw samlRefusal('idp.assertion_invalid');
  }
  return { response, encryptedAssertion, responseSignature: responseSignatures[0] };
}

/**
 * The decrypted plaintext, parsed: a `saml:Assertion` root, no other assertion, response
 * or encrypted element inside it (nothing further is decrypted), and a `Signature` only
 * as a child of the Assertion, at most once.
 */
export function checkDecryptedAssertionShape(document: Document): DecryptedAssertionShape {
  const assertion = document.documentElement;
  if (assertion.namespaceURI !== Namespaces.assertion || assertion.localName !== 'Assertion') {
    throw samlRefusal('idp.assertion_invalid');
  }
  for (const name of ['Response', 'EncryptedAssertion', 'EncryptedID', 'EncryptedData']) {
    if (descendantsByLocalName(document, name).length > 0) throw samlRefusal('idp.assertion_invalid');
  }
  if (descendantsByLocalName(document, 'Assertion').length !== 1) throw samlRefusal('idp.assertion_invalid');
  const signatures = childElements(assertion, Namespaces.signature, 'Signature');
  if (signatures.length > 1 || descendantsByLocalName(document, 'Signature').length !== signatures.length) {
    throw samlRefusal('idp.assertion_invalid');
  }
  return { assertion, signature: signatures[0] };
}
