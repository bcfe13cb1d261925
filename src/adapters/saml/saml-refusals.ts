import { GatehouseError } from '../../domain/errors.js';

/**
 * Every way the SAML adapter refuses a message or a metadata document: a stable code and a
 * fixed message for the error page. No message quotes anything of what was received (a
 * value from a hostile document must never reach a page or a log line).
 */
const REFUSALS = {
  'idp.response_malformed': 'The sign-in response is not a well-formed SAML message.',
  'idp.message_too_large': 'The SAML message is larger than this application reads.',
  'idp.assertion_invalid': 'The sign-in response does not have the shape of a SAML response with one assertion.',
  'idp.assertion_encrypted':
    'The identity provider encrypted the assertion or its NameID. An encrypted assertion needs Saml2:EncryptionCertificate and EncryptionKey configured here; an encrypted NameID is not supported. Or ask the identity provider to send it unencrypted (TLS protects it in transit).',
  'idp.assertion_unencrypted':
    'The assertion is not encrypted, and this application requires encrypted assertions (RequireEncryptedAssertions).',
  'idp.encryption_algorithm_refused':
    'The assertion is encrypted with an algorithm this application refuses (RSA-OAEP key transport with AES-GCM or AES-CBC only; RSA PKCS#1 v1.5 is not accepted).',
  'idp.signature_missing': 'The sign-in response carries no signature from the identity provider.',
  'idp.assertion_unsigned':
    'The assertion itself is not signed, and this application requires signed assertions (RequireSignedAssertions).',
  'idp.signature_invalid':
    "The sign-in response's signature does not verify with the identity provider's certificates.",
  'idp.signature_algorithm_refused':
    'The sign-in response is signed with an algorithm this application refuses (SHA-1 is not accepted).',
  'idp.certificate_expired': "The identity provider's signing certificate is outside its validity period.",
  'idp.schema_invalid': 'The sign-in response does not conform to the SAML 2.0 schema.',
  'idp.issuer_mismatch': 'The sign-in response was issued by another identity provider than the configured one.',
  'idp.destination_mismatch': 'The sign-in response was addressed to another service than this one.',
  'idp.audience_mismatch': 'The assertion is meant for another service than this one.',
  'idp.recipient_mismatch': 'The assertion was issued for delivery to another service than this one.',
  'idp.subject_unconfirmed': 'The assertion carries no bearer subject confirmation for this service.',
  'idp.conditions_missing': 'The assertion states no validity period (Conditions).',
  'idp.assertion_expired': 'The assertion has expired. Please sign in again.',
  'idp.assertion_not_yet_valid': 'The assertion is not valid yet. Check the clocks of both servers.',
  'idp.authn_instant_in_future':
    'The assertion says the person signed in later than now (its AuthnInstant is ahead of this server by more than the clock difference allowed). Check the clocks of both servers.',
  'idp.in_response_to_mismatch':
    'The sign-in response answers another sign-in request than the one started in this browser.',
  'idp.assertion_replayed': 'This assertion was used already. Please sign in again.',
  'idp.subject_missing':
    'The identity provider named the user with a one-time (transient) identifier only, and sent no stable identifier.',
  'idp.metadata_invalid': "The identity provider's metadata cannot be used.",
  'idp.session_ended':
    'The identity provider ended this sign-in session before its answer arrived. Please sign in again.',
  'idp.logout_malformed': 'The logout message is not a well-formed SAML logout message.',
  'idp.logout_signature_missing': 'The logout message carries no signature from the identity provider.',
  'idp.logout_signature_invalid':
    "The logout message's signature does not verify with the identity provider's certificates.",
  'idp.logout_issuer_mismatch': 'The logout message was issued by another identity provider than the configured one.',
  'idp.logout_destination_mismatch': 'The logout message was addressed to another service than this one.',
  'idp.logout_expired': 'The logout message is too old, or not valid yet. Check the clocks of both servers.',
  'idp.logout_replayed': 'This logout message was used already.',
  'idp.logout_unexpected': 'This logout answer does not answer a logout started here, or it was used already.',
} as const;

export type SamlRefusalCode = keyof typeof REFUSALS;

/** The refusal of one code, safe to show. */
export function samlRefusal(code: SamlRefusalCode): GatehouseError {
  return new GatehouseError(code, REFUSALS[code], { safe: true });
}

/** The refused metadata, with the reason (written by us, never quoting the document) for the operator. */
export function metadataRefusal(reason: string): GatehouseError {
  return new GatehouseError('idp.metadata_invalid', `${REFUSALS['idp.metadata_invalid']} ${reason}`, { safe: true });
}
