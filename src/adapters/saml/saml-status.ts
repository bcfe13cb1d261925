import { GatehouseError } from '../../domain/errors.js';
import { providerError } from '../oauth2/authorization-response.js';
import { Namespaces, STATUS_SUCCESS } from './saml-names.js';
import { childElements, attributeOf } from './saml-xml.js';

/** SAML Core 3.2.2.2 status codes, by the last segment of their URN: the only words a refusal quotes. */
const KNOWN_STATUS_CODES = new Set(
  [
    'Requester',
    'Responder',
    'VersionMismatch',
    'AuthnFailed',
    'InvalidAttrNameOrValue',
    'InvalidNameIDPolicy',
    'NoAuthnContext',
    'NoAvailableIDP',
    'NoPassive',
    'NoSupportedIDP',
    'PartialLogout',
    'ProxyCountExceeded',
    'RequestDenied',
    'RequestUnsupported',
    'RequestVersionDeprecated',
    'RequestVersionTooHigh',
    'RequestVersionTooLow',
    'ResourceNotRecognized',
    'TooManyResponses',
    'UnknownAttrProfile',
    'UnknownPrincipal',
    'UnsupportedBinding',
  ].map((name) => `urn:oasis:names:tc:SAML:2.0:status:${name}`),
);

/**
 * The identity provider's own refusal, read from `<samlp:Status>` (SAML Core 3.2.2.1):
 * undefined for Success (or no status); otherwise `idp.provider_error` naming the top-level and, when
 * there is one, the second-level status code, but only codes SAML defines: nothing the
 * message says in its own words (StatusMessage, StatusDetail, an unknown URN) is quoted.
 * Read without any signature check: a refusal needs no proof.
 */
export function reportedStatus(response: Element): GatehouseError | undefined {
  const [status] = childElements(response, Namespaces.protocol, 'Status');
  const [top] = status ? childElements(status, Namespaces.protocol, 'StatusCode') : [];
  const topCode = top ? attributeOf(top, 'Value') : undefined;
  // No status at all is no refusal by the provider: the schema check refuses such a message.
  if (topCode === undefined || topCode === STATUS_SUCCESS) return undefined;
  const [second] = top ? childElements(top, Namespaces.protocol, 'StatusCode') : [];
  const words = [topCode, second ? attributeOf(second, 'Value') : undefined]
    .map((code) =>
      code !== undefined && KNOWN_STATUS_CODES.has(code) ? code.slice(code.lastIndexOf(':') + 1) : undefined,
    )
    .filter((word) => word !== undefined);
  // RequestDenied: the provider "has chosen not to respond" (SAML Core 3.2.2.2): what an
  // identity provider's Cancel sends, a decision rather than a fault, as OAuth's access_denied.
  if (words.includes('RequestDenied')) return providerError('access_denied');
  const reason = words.length > 0 ? words.join('/') : 'unrecognized status';
  return new GatehouseError('idp.provider_error', `The identity provider refused the sign-in (${reason}).`, {
    safe: true,
  });
}
