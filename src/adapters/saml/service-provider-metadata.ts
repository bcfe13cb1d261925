import { Bindings, NameIdFormats, Namespaces } from './saml-names.js';
import { escapeXml } from './outgoing-messages.js';

export interface ServiceProviderDescription {
  entityId: string;
  acsUrl: string;
  wantAssertionsSigned: boolean;
  /** SAML Metadata 2.4.4: `AuthnRequestsSigned` (the identity provider's counterpart is `WantAuthnRequestsSigned`). */
  authnRequestsSigned: boolean;
  /** The signing certificate's base64 DER body, published as `use="signing"`. */
  signingCertificate: string | undefined;
  /** The single logout URL, published for HTTP-Redirect and HTTP-POST. */
  singleLogoutUrl: string | undefined;
}

/**
 * This service provider's metadata (SAML Metadata 2.4.4, SPSSODescriptor), served at
 * ModulePath: the signing certificate, the single logout service, the NameID format and
 * the Assertion Consumer Service, in the order the schema wants them.
 */
export function serviceProviderMetadataXml(sp: ServiceProviderDescription): string {
  const key = sp.signingCertificate
    ? `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${sp.signingCertificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`
    : '';
  const logout = sp.singleLogoutUrl
    ? [Bindings.redirect, Bindings.post]
        .map(
          (binding) =>
            `<md:SingleLogoutService Binding="${binding}" Location="${escapeXml(sp.singleLogoutUrl ?? '')}"/>`,
        )
        .join('')
    : '';
  return (
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<md:EntityDescriptor xmlns:md="${Namespaces.metadata}" xmlns:ds="${Namespaces.signature}" entityID="${escapeXml(sp.entityId)}">` +
    `<md:SPSSODescriptor AuthnRequestsSigned="${sp.authnRequestsSigned}" WantAssertionsSigned="${sp.wantAssertionsSigned}" protocolSupportEnumeration="${Namespaces.protocol}">` +
    key +
    logout +
    `<md:NameIDFormat>${NameIdFormats.unspecified}</md:NameIDFormat>` +
    `<md:AssertionConsumerService index="0" Binding="${Bindings.post}" Location="${escapeXml(sp.acsUrl)}"/>` +
    `</md:SPSSODescriptor></md:EntityDescriptor>`
  );
}
