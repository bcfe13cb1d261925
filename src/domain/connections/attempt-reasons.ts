/**
 * Why a sign-in through a connection was refused, in one line for the organization's IT
 * administrator (the setup portal's and the administration API's recent attempts): what
 * went wrong, and where to look. The codes a person can hit; the others fall back on the
 * refusal's own safe message, when it has one.
 */
const ATTEMPT_REASONS: Readonly<Record<string, string>> = {
  'idp.domain_not_allowed':
    "The person's e-mail address is not in one of the organization's domains: they must sign in through their own organization.",
  'idp.domain_not_verified':
    "The person's e-mail domain was added but is not verified yet: publish its TXT record and verify it under Your domains.",
  'idp.email_missing':
    'The identity provider sent no e-mail address: release the e-mail address attribute or claim to this application.',
  'idp.email_unverified': 'The identity provider says the e-mail address is not verified.',
  'idp.user_deprovisioned':
    "The organization's directory deactivated or deleted this person (over SCIM): reactivate them there to let them in.",
  'idp.directory_unavailable':
    "The organization's directory could not be checked (the database did not answer): the person can try again shortly.",
  'idp.signature_invalid':
    "The answer's signature does not match the signing certificate in the identity provider's metadata: check the certificate it signs with.",
  'idp.signature_missing':
    'The identity provider did not sign its answer: turn on signing of the assertion or the response.',
  'idp.assertion_unsigned': 'The identity provider did not sign the assertion: turn on assertion signing.',
  'idp.signature_algorithm_refused':
    'The identity provider signs with an algorithm refused here (SHA-1): choose RSA-SHA256 there.',
  'idp.certificate_expired':
    "The identity provider's signing certificate has expired: renew it there and publish the new one in its metadata.",
  'idp.assertion_expired':
    "The assertion had expired when it arrived: check the identity provider's clock, or the person took too long.",
  'idp.assertion_not_yet_valid': "The assertion is not valid yet: the identity provider's clock is ahead of ours.",
  'idp.authn_instant_in_future': "The identity provider's clock is ahead of ours: check both servers' time.",
  'idp.conditions_missing': 'The assertion carries no Conditions (its validity period and audience).',
  'idp.audience_mismatch':
    "The assertion is for another audience: the entity ID (audience) entered at the identity provider must be this application's.",
  'idp.recipient_mismatch':
    "The assertion was addressed to another ACS URL: enter this application's ACS URL at the identity provider.",
  'idp.destination_mismatch':
    "The response was addressed to another ACS URL: enter this application's ACS URL at the identity provider.",
  'idp.issuer_mismatch':
    'The answer came from another issuer than the one configured: check the entity ID or issuer given here.',
  'idp.subject_missing': 'The identity provider named no subject (NameID or sub) for the person.',
  'idp.subject_unconfirmed': 'The assertion could not be confirmed for this application (SubjectConfirmation).',
  'idp.assertion_encrypted': 'The identity provider encrypted the assertion, which this connection cannot decrypt.',
  'idp.assertion_unencrypted':
    'The connection requires encrypted assertions and the identity provider sent a plain one.',
  'idp.assertion_replayed': 'The same assertion arrived twice: the second was refused.',
  'idp.in_response_to_mismatch': 'The answer names a sign-in request this browser did not make.',
  'idp.flow_missing':
    'No sign-in started in this browser matched the answer: cookies blocked, completed already, or started at the identity provider.',
  'idp.flow_expired': 'The person took longer than allowed between starting and finishing the sign-in.',
  'idp.state_mismatch': 'The answer belongs to a sign-in started in another browser.',
  'idp.sign_in_cancelled': 'The person cancelled the sign-in at the identity provider.',
  'idp.connection_not_active': 'The connection is not activated yet: finish the setup and activate it.',
  'idp.token_exchange_failed':
    'The identity provider refused to exchange the code for tokens: check the client ID and secret given here.',
  'idp.id_token_invalid': "The identity provider's ID token failed a check (signature, issuer, audience or time).",
  'idp.userinfo_failed': "The identity provider's userinfo endpoint did not answer as expected.",
  'idp.unreachable': 'The identity provider could not be reached from here.',
  'idp.timeout': 'The identity provider did not answer in time.',
  'idp.unavailable': "The organization's sign-in could not be set up here: the operator's log says why.",
  'idp.session_ended': 'The identity provider ended this sign-in before it completed.',
  'idp.response_malformed': "The identity provider's answer is not a well-formed SAML response.",
  'idp.schema_invalid': "The identity provider's answer does not follow the SAML schema.",
  'idp.message_too_large': "The identity provider's answer is larger than this application accepts.",
  'internal_error.unexpected': "Something failed on this application's side: the operator's log has the details.",
  'session.store_unavailable': "This application's session store could not be reached: try again shortly.",
};

/** The one-line reason of a refusal code, when the table has one. */
export function attemptReason(code: string): string | undefined {
  return Object.hasOwn(ATTEMPT_REASONS, code) ? ATTEMPT_REASONS[code] : undefined;
}
