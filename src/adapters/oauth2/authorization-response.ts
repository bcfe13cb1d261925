import type { CallbackMessage } from '../../application/ports/identity-provider.js';
import { GatehouseError } from '../../domain/errors.js';

/**
 * The parameters of an OAuth 2.0 authorization response (RFC 6749 4.1.2): the query of a
 * redirect, or the form of a `form_post` response (OAuth 2.0 Form Post Response Mode).
 */
export function authorizationResponse(message: CallbackMessage): URLSearchParams {
  return message.method === 'POST' ? message.form : message.url.searchParams;
}

/** The `state` that correlates the response with its flow; a response carrying two is refused. */
export function correlateState(message: CallbackMessage): string | undefined {
  const states = authorizationResponse(message).getAll('state');
  if (states.length > 1) {
    throw new GatehouseError('request.repeated_parameter', 'The parameter "state" must appear at most once.', {
      safe: true,
    });
  }
  return states[0] === '' ? undefined : states[0];
}

/** RFC 6749 4.1.2.1: the provider's own refusal (`access_denied` ...), if the response reports one. */
export function reportedOAuthError(message: CallbackMessage): GatehouseError | undefined {
  const error = authorizationResponse(message).get('error');
  return error === null ? undefined : providerError(error);
}

/**
 * An authorization error response (RFC 6749 4.1.2.1): the OAuth error code is named, the
 * free-text error_description is not echoed. `access_denied` is what every provider sends
 * when the person cancels or declines at its sign-in or consent page (RFC 6749: "the
 * resource owner or authorization server denied the request"): a decision, not a fault, so
 * it has its own code and a calm page (`idp.sign_in_cancelled`).
 */
export function providerError(oauthError: unknown): GatehouseError {
  if (oauthError === 'access_denied') {
    return new GatehouseError(
      'idp.sign_in_cancelled',
      'The sign-in was cancelled or declined at the identity provider, so you are not signed in.',
      { safe: true },
    );
  }
  return new GatehouseError(
    'idp.provider_error',
    `The identity provider refused the sign-in (${oauthErrorCode(oauthError)}).`,
    { safe: true },
  );
}

/** RFC 6749 5.2 error codes are short ASCII words; anything else is not echoed. */
export function oauthErrorCode(value: unknown): string {
  return typeof value === 'string' && /^[a-z0-9_.-]{1,64}$/i.test(value) ? value : 'unrecognized_error';
}
