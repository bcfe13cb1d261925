import type { CallbackMessage } from '../../application/ports/identity-provider.js';
import { isGatehouseError } from '../../domain/errors.js';
import { SAML_ID } from './assertion-checks.js';
import { LOGOUT_MESSAGE_SIZE } from './message-size.js';
import { readRedirectMessage, type MessageField } from './redirect-binding.js';
import { Namespaces, STATUS_SUCCESS } from './saml-names.js';
import { readNameId, type SamlNameId } from './saml-name-id.js';
import { samlRefusal } from './saml-refusals.js';
import {
  attributeOf,
  childElements,
  decodePostedMessage,
  descendantsByLocalName,
  parseSamlXml,
  textOf,
} from './saml-xml.js';
import { verifyEnvelopedSignature } from './signed-parts.js';
import { isWithinValidity, type SigningCertificate } from './signing-certificate.js';
import { singleField } from '../single-field.js';

/** How long after its IssueInstant a logout message is accepted (plus the clock skew): a browser carries it at once. */
export const LOGOUT_MESSAGE_LIFETIME_MS = 5 * 60 * 1000;
/** SAML Bindings 3.4.3: RelayState "MUST NOT exceed 80 bytes"; more than this is no identity provider's. */
const MAX_RELAY_STATE_LENGTH = 1024;
/** A LogoutRequest names a few sessions at most. */
const MAX_SESSION_INDEXES = 32;

export interface LogoutExpectations {
  /** The identity provider's entity ID (from its metadata). */
  issuer: string;
  /** Our single logout URL: the message's Destination. */
  destination: string;
  certificates: readonly SigningCertificate[];
  validateCertificates: boolean;
  /** The SAML schema check (libxml2), as for responses. */
  validateSchema: (xml: string) => Promise<unknown>;
  now: number;
  clockSkewMs: number;
}

export type ReceivedLogout =
  | {
      kind: 'request';
      id: string;
      nameId: SamlNameId;
      sessionIndexes: string[];
      /** Until when the request could be presented: its replay record lasts as long. */
      acceptableUntil: number;
      /** SAML Bindings 3.4.3 / 3.5.3: returned unchanged with the answer. */
      relayState: string | undefined;
    }
  | { kind: 'response'; id: string; inResponseTo: string; success: boolean };

/**
 * Reads a LogoutRequest or LogoutResponse as it arrived at the single logout path and
 * checks it whole, every value read from what the signature covers:
 * - HTTP-Redirect (GET): the query signature over the parameters as sent (SAML Bindings
 *   3.4.4.1), verified before the message is even inflated (redirect-binding.ts), and no
 *   XML signature inside (the binding forbids one);
 * - HTTP-POST: the message within LOGOUT_MESSAGE_SIZE before it is parsed; exactly one
 *   `Signature` in the document, a child of the root, referencing the root, verified as
 *   responses are (signed-parts.ts: metadata keys only, SHA-256 or better), the root read
 *   back from the signed bytes: no wrapping;
 * - either: the schema, a signature required (SAML Profiles 4.4.3.x and SAML Bindings
 *   3.4.5.2 / 3.5.5.2), certificate validity (ValidateCertificates), Version 2.0, an xs:ID,
 *   Issuer = the identity provider, Destination = our URL, IssueInstant within the last
 *   five minutes (with the clock skew both ways), a LogoutRequest's NotOnOrAfter, and its
 *   NameID (an EncryptedID or BaseID is refused).
 * Single use (request IDs) and the outstanding-request match (responses) are the caller's.
 */
export async function readLogoutMessage(message: CallbackMessage, expect: LogoutExpectations): Promise<ReceivedLogout> {
  const received = receivedMessage(message, expect.certificates);
  const document = parseSamlXml(received.xml, () => samlRefusal('idp.logout_malformed'));
  const root = document.documentElement;
  const localName = received.field === 'SAMLRequest' ? 'LogoutRequest' : 'LogoutResponse';
  if (root.namespaceURI !== Namespaces.protocol || root.localName !== localName)
    throw samlRefusal('idp.logout_malformed');
  if (descendantsByLocalName(document, localName).length !== 1) throw samlRefusal('idp.logout_malformed');
  if (descendantsByLocalName(document, 'EncryptedID').length > 0) throw samlRefusal('idp.logout_malformed');
  const signatures = descendantsByLocalName(document, 'Signature');
  const [enveloped] = childElements(root, Namespaces.signature, 'Signature');
  if (received.querySigner ? signatures.length > 0 : signatures.length > 1 || signatures[0] !== enveloped) {
    throw samlRefusal(signatures.length === 0 ? 'idp.logout_signature_missing' : 'idp.logout_malformed');
  }
  await schemaChecked(received.xml, expect);

  let signed: Element;
  let signer: SigningCertificate;
  if (received.querySigner) {
    signer = received.querySigner;
    signed = root;
  } else {
    if (!enveloped) throw samlRefusal('idp.logout_signature_missing');
    ({ element: signed, signer } = verifiedEnvelope(received.xml, root, enveloped, expect.certificates));
  }
  if (expect.validateCertificates && !isWithinValidity(signer, expect.now))
    throw samlRefusal('idp.certificate_expired');

  const id = attributeOf(signed, 'ID') ?? '';
  if (attributeOf(signed, 'Version') !== '2.0' || !SAML_ID.test(id)) throw samlRefusal('idp.logout_malformed');
  const [issuer] = childElements(signed, Namespaces.assertion, 'Issuer');
  if (!issuer || textOf(issuer) !== expect.issuer) throw samlRefusal('idp.logout_issuer_mismatch');
  if (attributeOf(signed, 'Destination') !== expect.destination) throw samlRefusal('idp.logout_destination_mismatch');
  const issuedAt = timeAttribute(signed, 'IssueInstant');
  if (
    issuedAt === undefined ||
    issuedAt > expect.now + expect.clockSkewMs ||
    issuedAt < expect.now - expect.clockSkewMs - LOGOUT_MESSAGE_LIFETIME_MS
  ) {
    throw samlRefusal('idp.logout_expired');
  }

  if (localName === 'LogoutResponse') {
    const inResponseTo = attributeOf(signed, 'InResponseTo') ?? '';
    if (!SAML_ID.test(inResponseTo)) throw samlRefusal('idp.logout_unexpected');
    const [status] = childElements(signed, Namespaces.protocol, 'Status');
    const [code] = status ? childElements(status, Namespaces.protocol, 'StatusCode') : [];
    return {
      kind: 'response',
      id,
      inResponseTo,
      success: code !== undefined && attributeOf(code, 'Value') === STATUS_SUCCESS,
    };
  }
  // SAML Core 3.7.1: after NotOnOrAfter the request is to be discarded.
  const notOnOrAfter = timeAttribute(signed, 'NotOnOrAfter');
  if (notOnOrAfter !== undefined && expect.now - expect.clockSkewMs >= notOnOrAfter)
    throw samlRefusal('idp.logout_expired');
  const nameId = readNameId(signed);
  if (!nameId) throw samlRefusal('idp.logout_malformed');
  const sessionIndexes = childElements(signed, Namespaces.protocol, 'SessionIndex').map(textOf);
  if (
    sessionIndexes.length > MAX_SESSION_INDEXES ||
    sessionIndexes.some((index) => index === '' || index.length > 1024)
  ) {
    throw samlRefusal('idp.logout_malformed');
  }
  return {
    kind: 'request',
    id,
    nameId,
    sessionIndexes,
    acceptableUntil: issuedAt + LOGOUT_MESSAGE_LIFETIME_MS + 2 * expect.clockSkewMs,
    relayState: received.relayState,
  };
}

interface Received {
  field: MessageField;
  xml: string;
  relayState: string | undefined;
  /** HTTP-Redirect: the certificate that verified the query signature (checked before the message was read). */
  querySigner?: SigningCertificate;
}

function receivedMessage(message: CallbackMessage, certificates: readonly SigningCertificate[]): Received {
  if (message.method === 'GET') {
    const redirect = readRedirectMessage(message.url.search.slice(1), certificates);
    return {
      field: redirect.field,
      xml: redirect.xml,
      relayState: boundedRelayState(redirect.relayState),
      querySigner: redirect.signer,
    };
  }
  const request = singleField(message.form, 'SAMLRequest');
  const response = singleField(message.form, 'SAMLResponse');
  if ((request === undefined) === (response === undefined)) throw samlRefusal('idp.logout_malformed');
  const relayState = boundedRelayState(singleField(message.form, 'RelayState'));
  const xml = decodePostedMessage((request ?? response) as string, LOGOUT_MESSAGE_SIZE, () =>
    samlRefusal('idp.logout_malformed'),
  );
  return { field: request !== undefined ? 'SAMLRequest' : 'SAMLResponse', xml, relayState };
}

function boundedRelayState(value: string | undefined): string | undefined {
  if (value !== undefined && value.length > MAX_RELAY_STATE_LENGTH) throw samlRefusal('idp.logout_malformed');
  return value;
}

async function schemaChecked(xml: string, expect: LogoutExpectations): Promise<void> {
  try {
    await expect.validateSchema(xml);
  } catch (error) {
    // Unavailable stays unavailable (503); anything the schema refuses is a malformed message.
    if (isGatehouseError(error) && error.code === 'idp.validator_unavailable') throw error;
    throw samlRefusal('idp.logout_malformed');
  }
}

function verifiedEnvelope(
  xml: string,
  root: Element,
  signature: Element,
  certificates: readonly SigningCertificate[],
): { element: Element; signer: SigningCertificate } {
  try {
    return verifyEnvelopedSignature(xml, root, signature, certificates);
  } catch (error) {
    if (isGatehouseError(error) && error.code === 'idp.signature_algorithm_refused') throw error;
    throw samlRefusal('idp.logout_signature_invalid');
  }
}

/** SAML Core 1.3.3: an xs:dateTime in UTC; present but not one is a malformed message. */
function timeAttribute(element: Element, name: string): number | undefined {
  const value = attributeOf(element, name);
  if (value === undefined) return undefined;
  const time = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) throw samlRefusal('idp.logout_malformed');
  return time;
}
