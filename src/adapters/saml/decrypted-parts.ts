import type { KeyObject } from 'node:crypto';
import { XMLSerializer } from '@xmldom/xmldom';
import { decryptAssertion, decryptionRefusal } from './assertion-decryption.js';
import {
  checkDecryptedAssertionShape,
  type DecryptedAssertionShape,
  type EncryptedResponseShape,
} from './encrypted-response-shape.js';
import { Namespaces } from './saml-names.js';
import { samlRefusal } from './saml-refusals.js';
import { childElements, parseSamlXml } from './saml-xml.js';
import { verifyEnvelopedSignature, type SignedParts } from './signed-parts.js';
import type { SigningCertificate } from './signing-certificate.js';

/** SignedParts of an encrypted response, and the response as the schema check reads it. */
export interface DecryptedParts extends SignedParts {
  /** The response as received with the decrypted Assertion in place of the EncryptedAssertion. */
  decryptedResponseXml: string;
}

/**
 * readSignedParts for a response whose assertion is encrypted (SAML Core 6.2: encrypt
 * after signing). A signature of the Response covers the EncryptedAssertion, so it is
 * verified first and the assertion is decrypted from the Response *as signed*: a tampered
 * ciphertext under a signed Response is refused without being decrypted. The assertion's
 * own signature is verified over the decrypted assertion (the bytes the identity provider
 * signed before encrypting). With `requireSignedAssertion` the decrypted assertion needs
 * its own signature, as a plain one does; otherwise the Response's signature is enough,
 * since the plaintext is fully determined by the signed ciphertext and our key.
 *
 * Until the assertion's signature is reached every failure is one answer
 * (`idp.assertion_invalid`): whether a doctored plaintext decrypts, parses or has an
 * assertion's shape must not show (assertion-decryption.ts).
 */
export function readDecryptedParts(
  xml: string,
  shape: EncryptedResponseShape,
  certificates: readonly SigningCertificate[],
  requireSignedAssertion: boolean,
  keys: readonly KeyObject[],
): DecryptedParts {
  const signers: SigningCertificate[] = [];
  let response: Element | undefined;
  let encrypted = shape.encryptedAssertion;
  if (shape.responseSignature) {
    const signed = verifyEnvelopedSignature(xml, shape.response, shape.responseSignature, certificates);
    signers.push(signed.signer);
    response = signed.element;
    const [inside] = childElements(signed.element, Namespaces.assertion, 'EncryptedAssertion');
    if (!inside) throw samlRefusal('idp.assertion_invalid');
    encrypted = inside;
  }

  const { xml: assertionXml, failure } = decryptAssertion(encrypted, keys);
  let decrypted: DecryptedAssertionShape | undefined;
  try {
    decrypted = checkDecryptedAssertionShape(parseSamlXml(assertionXml));
  } catch {
    decrypted = undefined;
  }
  // Refused only now, a padding failure after the same parse as any other plaintext.
  if (failure || !decrypted) throw decryptionRefusal(failure ?? 'plaintext');

  if (!shape.responseSignature && !decrypted.signature) throw samlRefusal('idp.signature_missing');
  if (requireSignedAssertion && !decrypted.signature) throw samlRefusal('idp.assertion_unsigned');
  let assertion = decrypted.assertion;
  if (decrypted.signature) {
    const signed = verifyEnvelopedSignature(assertionXml, decrypted.assertion, decrypted.signature, certificates);
    signers.push(signed.signer);
    assertion = signed.element;
  }
  return {
    response,
    assertion,
    assertionSigned: decrypted.signature !== undefined,
    signers,
    decryptedResponseXml: withAssertionInPlace(xml, decrypted.assertion),
  };
}

/** The received response with `assertion` where its EncryptedAssertion was. */
function withAssertionInPlace(xml: string, assertion: Element): string {
  const document = parseSamlXml(xml);
  const [encrypted] = childElements(document.documentElement, Namespaces.assertion, 'EncryptedAssertion');
  if (!encrypted) throw samlRefusal('idp.assertion_invalid');
  document.documentElement.replaceChild(document.importNode(assertion, true), encrypted);
  return new XMLSerializer().serializeToString(document);
}
