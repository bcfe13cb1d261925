import type { CallbackMessage } from '../../application/ports/identity-provider.js';
import { postedResponseOf } from './posted-response.js';
import { elementsBelow } from './saml-xml.js';

/**
 * Whether a posted SAMLResponse names no request it answers (SAML Profiles 4.1.5: an
 * unsolicited response, IdP-initiated), read before any check: no element anywhere, signed
 * or not, carries `InResponseTo`. Strict on purpose: a response whose unsigned Response
 * lost its InResponseTo while its signed assertion kept one still names a request, and so
 * must go through that request's flow (no downgrade to unsolicited). The caller hands the
 * document it parsed once (posted-response.ts); a message that cannot be read is not
 * unsolicited: the flow's way refuses it with its reason.
 */
export function namesNoRequest(document: Document): boolean {
  return elementsBelow(document, (element) => element.hasAttribute('InResponseTo')).length === 0;
}

/** Whether a posted message is an unsolicited response; one that cannot be read is not (the flow's way refuses it, with its reason). */
export function isUnsolicitedMessage(message: CallbackMessage): boolean {
  let document: Document;
  try {
    ({ document } = postedResponseOf(message));
  } catch {
    return false;
  }
  return namesNoRequest(document);
}
