import { ADVERTISED_ENCRYPTION_METHODS, EncryptionNamespaces } from './encryption-algorithms.js';
import { escapeXml } from './outgoing-messages.js';
import { Bindings, NameIdFormats, Namespaces } from './saml-names.js';

export interface ServiceProviderDescription {
  entityId: string;
  acsUrl: string;
  wantAssertionsSigned: boolean;
  /** SAML Metadata 2.4.4: `AuthnRequestsSigned` (the identity provider's counterpart is `WantAuthnRequestsSigned`). */
  authnRequestsSigned: boolean;
  /** The signing certificate's base64 DER body, published as `use="signing"`. */
  signingCertificate: string | undefined;
  /** The encryption certificates' bodies, first one first; two during a key rollover. */
  encryptionCertificates: readonly string[];
  /** The single logout URL, published for HTTP-Redirect and HTTP-POST. */
  singleLogoutUrl: string | undefined;
}

/**
 * This service provider's metadata (SAML Metadata 2.4.4, SPSSODescriptor), served at
 * ModulePath: the signing certificate, one `use="encryption"` KeyDescriptor per encryption
 * certificate listing the algorithms we decrypt (most preferred first: an identity
 * provider that reads our metadata, as Shibboleth does, encrypts with one of them), the
 * single logout service, the NameID format and the Assertion Consumer Service, in the
 * order the schema wants them.
 */
export function serviceProviderMetadataXml(sp: ServiceProviderDescription): string {
  const signingKey = sp.signingCertificate
    ? `<md:KeyDescriptor use="signing">${keyInfo(sp.signingCertificate)}</md:KeyDescriptor>`
    : '';
  const encryptionKeys = sp.encryptionCertificates.map(encryptionKeyDescriptor).join('');
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
    signingKey +
    encryptionKeys +
    logout +
    `<md:NameIDFormat>${NameIdFormats.unspecified}</md:NameIDFormat>` +
    `<md:AssertionConsumerService index="0" Binding="${Bindings.post}" Location="${escapeXml(sp.acsUrl)}"/>` +
    `</md:SPSSODescriptor></md:EntityDescriptor>`
  );
}

function keyInfo(certificateBody: string): string {
  return `<ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificateBody}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>`;
}

function encryptionKeyDescriptor(certificateBody: string): string {
  const methods = ADVERTISED_ENCRYPTION_METHODS.map(({ algorithm, digest, mask }) => {
    const digestMethod = digest ? `<ds:DigestMethod Algorithm="${digest}"/>` : '';
    const maskMethod = mask ? `<xenc11:MGF xmlns:xenc11="${EncryptionNamespaces.xenc11}" Algorithm="${mask}"/>` : '';
    return `<md:EncryptionMethod Algorithm="${algorithm}">${digestMethod}${maskMethod}</md:EncryptionMethod>`;
  }).join('');
  return `<md:KeyDescriptor use="encryption">${keyInfo(certificateBody)}${methods}</md:KeyDescriptor>`;
}
