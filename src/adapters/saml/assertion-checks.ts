import { BEARER_METHOD, Namespaces } from './saml-names.js';
import { samlRefusal } from './saml-refusals.js';
import { attributeOf, childElements, textOf } from './saml-xml.js';
import type { SignedParts } from './signed-parts.js';

/** An xs:ID (an NCName), bounded in length. */
export const SAML_ID = /^[A-Za-z_][A-Za-z0-9_.-]{0,255}$/;

/** What this service provider expects of an answer to one of its requests. */
export interface Expectations {
  /** The identity provider's entity ID (from its metadata). */
  issuer: string;
  /** Our entity ID: the audience. */
  audience: string;
  /** Our Assertion Consumer Service URL: the Response's Destination and the bearer Recipient. */
  acsUrl: string;
  /**
   * The ID of the AuthnRequest this browser's flow sent; null for an unsolicited
   * (IdP-initiated) response accepted by configuration, which then must name no request.
   */
  requestId: string | null;
  now: number;
  /** Tolerated clock difference between the identity provider and us, in milliseconds. */
  clockSkewMs: number;
}

/** What the checks established about an assertion that passed them. */
export interface CheckedAssertion {
  id: string;
  issuer: string;
  /** Until when the assertion could be presented (milliseconds since the epoch): the replay record lasts as long. */
  acceptableUntil: number;
}

/**
 * The checks samlify leaves to its caller, each on the signed element (SignedParts): the
 * Response's own attributes are read from the signed Response when it is signed; when only
 * the Assertion is signed they are unsigned, and the bearer confirmation inside the signed
 * Assertion (Recipient, InResponseTo) is what binds it to this service and this request.
 */
export function checkAssertion(signed: SignedParts, unsignedResponse: Element, expect: Expectations): CheckedAssertion {
  const response = signed.response ?? unsignedResponse;
  // SAML Bindings 3.5.5.2: the Destination must be the URL the message was delivered to.
  if (attributeOf(response, 'Destination') !== expect.acsUrl) throw samlRefusal('idp.destination_mismatch');
  // SAML Core 3.2.2: InResponseTo, when present, names the request this answers.
  const responseInResponseTo = attributeOf(response, 'InResponseTo');
  if (responseInResponseTo !== undefined && responseInResponseTo !== expect.requestId) {
    throw samlRefusal('idp.in_response_to_mismatch');
  }
  // SAML Core 3.2.2: the Response's own Issuer, when present, is the assertion's.
  const [responseIssuer] = childElements(response, Namespaces.assertion, 'Issuer');
  if (responseIssuer && textOf(responseIssuer) !== expect.issuer) throw samlRefusal('idp.issuer_mismatch');

  const assertion = signed.assertion;
  const id = attributeOf(assertion, 'ID') ?? '';
  // SAML Core 1.3.4: an xs:ID; it keys the replay record and may be logged, so its shape is checked.
  if (!SAML_ID.test(id)) throw samlRefusal('idp.assertion_invalid');
  const [issuer] = childElements(assertion, Namespaces.assertion, 'Issuer');
  // SAML Profiles 4.1.4.2: the assertion's Issuer is the identity provider's entity ID.
  if (!issuer || textOf(issuer) !== expect.issuer) throw samlRefusal('idp.issuer_mismatch');
  const conditionsUntil = checkConditions(assertion, expect);
  const confirmedUntil = checkBearerConfirmation(assertion, expect);
  checkSessionNotOnOrAfter(assertion, expect);
  return { id, issuer: expect.issuer, acceptableUntil: Math.min(conditionsUntil, confirmedUntil) + expect.clockSkewMs };
}

/** SAML Core 2.5.1: a validity window, and every AudienceRestriction (2.5.1.4) naming us. */
function checkConditions(assertion: Element, expect: Expectations): number {
  const [conditions, ...more] = childElements(assertion, Namespaces.assertion, 'Conditions');
  if (!conditions || more.length > 0) throw samlRefusal('idp.conditions_missing');
  const notBefore = timeAttribute(conditions, 'NotBefore');
  const notOnOrAfter = timeAttribute(conditions, 'NotOnOrAfter');
  if (notOnOrAfter === undefined) throw samlRefusal('idp.conditions_missing');
  checkWindow(notBefore, notOnOrAfter, expect);
  const restrictions = childElements(conditions, Namespaces.assertion, 'AudienceRestriction');
  // SAML Profiles 4.1.4.2: at least one restriction naming this service provider; SAML Core
  // 2.5.1.4: with several, the assertion is valid only for audiences named in each of them.
  if (restrictions.length === 0) throw samlRefusal('idp.audience_mismatch');
  for (const restriction of restrictions) {
    const audiences = childElements(restriction, Namespaces.assertion, 'Audience').map(textOf);
    if (!audiences.includes(expect.audience)) throw samlRefusal('idp.audience_mismatch');
  }
  return notOnOrAfter;
}

/**
 * SAML Profiles 4.1.4.2: a bearer SubjectConfirmation whose data names our ACS as
 * Recipient, limits delivery with NotOnOrAfter, and answers this browser's request
 * (InResponseTo). The first bearer confirmation that fits wins; if none does, the first
 * one's failure is the reason given.
 */
function checkBearerConfirmation(assertion: Element, expect: Expectations): number {
  const [subject] = childElements(assertion, Namespaces.assertion, 'Subject');
  const bearers = subject
    ? childElements(subject, Namespaces.assertion, 'SubjectConfirmation').filter(
        (confirmation) => attributeOf(confirmation, 'Method') === BEARER_METHOD,
      )
    : [];
  if (bearers.length === 0) throw samlRefusal('idp.subject_unconfirmed');
  let firstFailure: unknown;
  for (const bearer of bearers) {
    try {
      return checkConfirmationData(bearer, expect);
    } catch (failure) {
      firstFailure ??= failure;
    }
  }
  throw firstFailure;
}

function checkConfirmationData(bearer: Element, expect: Expectations): number {
  const [data] = childElements(bearer, Namespaces.assertion, 'SubjectConfirmationData');
  if (!data) throw samlRefusal('idp.subject_unconfirmed');
  if (attributeOf(data, 'Recipient') !== expect.acsUrl) throw samlRefusal('idp.recipient_mismatch');
  const notOnOrAfter = timeAttribute(data, 'NotOnOrAfter');
  if (notOnOrAfter === undefined) throw samlRefusal('idp.subject_unconfirmed');
  checkWindow(timeAttribute(data, 'NotBefore'), notOnOrAfter, expect);
  // An unsolicited (IdP-initiated) assertion has no InResponseTo: it passes only when
  // unsolicited responses are allowed (requestId null), and one that names a request never does.
  if ((attributeOf(data, 'InResponseTo') ?? null) !== expect.requestId) {
    throw samlRefusal('idp.in_response_to_mismatch');
  }
  return notOnOrAfter;
}

/**
 * SAML Core 2.7.2: an AuthnStatement's SessionNotOnOrAfter ends the session the identity
 * provider vouches for; a sign-in after it is refused (samlify checks it on a plain
 * response too; a decrypted one reaches only this check).
 */
function checkSessionNotOnOrAfter(assertion: Element, expect: Expectations): void {
  for (const statement of childElements(assertion, Namespaces.assertion, 'AuthnStatement')) {
    const sessionEnd = timeAttribute(statement, 'SessionNotOnOrAfter');
    if (sessionEnd !== undefined && expect.now - expect.clockSkewMs >= sessionEnd) {
      throw samlRefusal('idp.assertion_expired');
    }
  }
}

/** SAML Core 1.3.3: times are xs:dateTime in UTC; the window is [NotBefore, NotOnOrAfter), widened by the skew. */
function checkWindow(notBefore: number | undefined, notOnOrAfter: number, expect: Expectations): void {
  if (notBefore !== undefined && expect.now + expect.clockSkewMs < notBefore) {
    throw samlRefusal('idp.assertion_not_yet_valid');
  }
  if (expect.now - expect.clockSkewMs >= notOnOrAfter) throw samlRefusal('idp.assertion_expired');
}

/** An xs:dateTime attribute; a value that is present but not a UTC date-time is a refusal, not "absent". */
function timeAttribute(element: Element, name: string): number | undefined {
  const value = attributeOf(element, name);
  if (value === undefined) return undefined;
  const time = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) throw samlRefusal('idp.assertion_invalid');
  return time;
}
