import samlify, { type IdentityProviderInstance, type ServiceProviderInstance } from 'samlify';
import { isGatehouseError, type GatehouseError } from '../../domain/errors.js';
import type { IdentityProviderMetadata } from './identity-provider-metadata.js';
import { newRequestId } from './outgoing-messages.js';
import { Bindings, NameIdFormats, Namespaces } from './saml-names.js';
import { samlRefusal, type SamlRefusalCode } from './saml-refusals.js';
import type { SigningCertificate } from './signing-certificate.js';

export interface ServiceProviderOptions {
  entityId: string;
  acsUrl: string;
  wantAssertionsSigned: boolean;
  clockSkewMs: number;
}

/**
 * This service provider as samlify sees it, to read responses: our entity ID, one
 * Assertion Consumer Service with the HTTP-POST binding, and the clock skew for samlify's
 * own time checks. The AuthnRequests, logout messages and metadata are Gatehouse's own
 * (outgoing-messages.ts, redirect-binding.ts, service-provider-metadata.ts).
 */
export function samlifyServiceProvider(options: ServiceProviderOptions): ServiceProviderInstance {
  // samlify reads `generateID` from the settings, though its type declarations omit it.
  const settings: Parameters<typeof samlify.ServiceProvider>[0] & { generateID: () => string } = {
    entityID: options.entityId,
    assertionConsumerService: [{ Binding: Bindings.post, Location: options.acsUrl }],
    wantAssertionsSigned: options.wantAssertionsSigned,
    authnRequestsSigned: false,
    nameIDFormat: [NameIdFormats.unspecified],
    clockDrifts: [-options.clockSkewMs, options.clockSkewMs],
    generateID: newRequestId,
  };
  return samlify.ServiceProvider(settings);
}

/**
 * The identity provider as samlify sees it, trusting exactly one of its signing
 * certificates. samlify verifies with the certificate the message's KeyInfo names when the
 * metadata lists it, and otherwise with the metadata's first one; handing it the
 * certificate that verified (see SignedParts) makes every certificate of a rollover work,
 * with or without KeyInfo. Built from a minimal metadata document of the values already
 * read and checked, so samlify parses nothing we did not.
 */
export function samlifyIdentityProvider(
  metadata: IdentityProviderMetadata,
  certificate: SigningCertificate,
): IdentityProviderInstance {
  const xml =
    `<md:EntityDescriptor xmlns:md="${Namespaces.metadata}" xmlns:ds="${Namespaces.signature}" entityID="${escapeXml(metadata.entityId)}">` +
    `<md:IDPSSODescriptor protocolSupportEnumeration="${Namespaces.protocol}" WantAuthnRequestsSigned="false">` +
    `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificate.body}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
    `<md:SingleSignOnService Binding="${Bindings.redirect}" Location="${escapeXml(metadata.singleSignOnUrl)}"/>` +
    `</md:IDPSSODescriptor></md:EntityDescriptor>`;
  return samlify.IdentityProvider({ metadata: xml, wantAuthnRequestsSigned: false });
}

/**
 * Gives samlify its schema validator. samlify keeps it in process-wide state, so only the
 * composition root calls this, once; importing this module changes nothing.
 */
export function useSchemaValidator(validate: (xml: string) => Promise<string>): void {
  samlify.setSchemaValidator({ validate });
}

/** samlify's refusals (plain `Error`s with a code as message) as ours; anything unknown is an invalid assertion. */
const SAMLIFY_CODES: ReadonlyArray<[string, SamlRefusalCode]> = [
  ['ERR_FAILED_STATUS', 'idp.assertion_invalid'],
  ['ERR_UNMATCH_ISSUER', 'idp.issuer_mismatch'],
  ['ERR_SUBJECT_UNCONFIRMED', 'idp.assertion_expired'],
  ['ERR_EXPIRED_SESSION', 'idp.assertion_expired'],
  ['FAILED_TO_VERIFY_SIGNATURE', 'idp.signature_invalid'],
  ['ERROR_UNMATCH_CERTIFICATE_DECLARATION_IN_METADATA', 'idp.signature_invalid'],
  ['NO_SELECTED_CERTIFICATE', 'idp.signature_invalid'],
  ['ERR_POTENTIAL_WRAPPING_ATTACK', 'idp.assertion_invalid'],
];

/** Translates what samlify threw or rejected with (a string, an Error, our own GatehouseError from the validator). */
export function translateSamlifyError(thrown: unknown): GatehouseError {
  if (isGatehouseError(thrown)) return thrown;
  const text = thrown instanceof Error ? thrown.message : typeof thrown === 'string' ? thrown : '';
  const match = SAMLIFY_CODES.find(([prefix]) => text.startsWith(prefix));
  return samlRefusal(match ? match[1] : 'idp.assertion_invalid');
}

function escapeXml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
