import type { CallbackMessage } from '../../application/ports/identity-provider.js';
import { isGatehouseError, type GatehouseError } from '../../domain/errors.js';
import { singleField } from '../single-field.js';
import { RESPONSE_SIZE } from './message-size.js';
import { samlRefusal } from './saml-refusals.js';
import { decodePostedMessage, parseSamlXml } from './saml-xml.js';

/** The `SAMLResponse` of a POST to the ACS: as posted, decoded, and parsed. */
export interface PostedResponse {
  /** The base64 text as posted (samlify reads it again, after every check of ours). */
  encoded: string;
  xml: string;
  document: Document;
}

const read = new WeakMap<CallbackMessage, PostedResponse | GatehouseError>();

/**
 * The message's `SAMLResponse`, decoded within RESPONSE_SIZE and parsed once per message:
 * whether it is unsolicited, the status the identity provider reports and every check
 * that follows read the same document, and a message that cannot be read is refused with
 * the same error each time it is asked for. Nothing is parsed before the size is checked
 * (`idp.message_too_large`). Kept only as long as the message itself.
 */
export function postedResponseOf(message: CallbackMessage): PostedResponse {
  let result = read.get(message);
  if (result === undefined) {
    try {
      result = readPosted(message);
    } catch (error) {
      if (!isGatehouseError(error)) throw error;
      result = error;
    }
    read.set(message, result);
  }
  if (isGatehouseError(result)) throw result;
  return result;
}

function readPosted(message: CallbackMessage): PostedResponse {
  const encoded = singleField(message.form, 'SAMLResponse');
  if (encoded === undefined) throw samlRefusal('idp.response_malformed');
  const xml = decodePostedMessage(encoded, RESPONSE_SIZE);
  return { encoded, xml, document: parseSamlXml(xml) };
}
