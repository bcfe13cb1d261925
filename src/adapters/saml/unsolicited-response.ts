import { decodePostedMessage, parseSamlXml } from './saml-xml.js';

/**
 * Whether a posted SAMLResponse names no request it answers (SAML Profiles 4.1.5: an
 * unsolicited response, IdP-initiated), read before any check: no element anywhere, signed
 * or not, carries `InResponseTo`. Strict on purpose: a response whose unsigned Response
 * lost its InResponseTo while its signed assertion kept one still names a request, and so
 * must go through that request's flow (no downgrade to unsolicited). A message that cannot
 * be read is not unsolicited either: the flow's way refuses it with its reason.
 */
export function namesNoRequest(encoded: string | undefined): boolean {
  if (encoded === undefined) return false;
  let document: Document;
  try {
    document = parseSamlXml(decodePostedMessage(encoded));
  } catch {
    return false;
  }
  return !Array.from(document.getElementsByTagNameNS('*', '*')).some((element) => element.hasAttribute('InResponseTo'));
}
