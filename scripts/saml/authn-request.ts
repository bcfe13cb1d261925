/**
 * Reads an AuthnRequest sent with the HTTP-Redirect binding (SAML Bindings 3.4.4.1:
 * DEFLATE, then base64, then URL-encoding), as an identity provider does. For the demo
 * identity provider and the tests; nothing in src/ imports it.
 */
import { inflateRawSync } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';

export interface ReceivedAuthnRequest {
  id: string;
  issuer: string;
  acsUrl: string;
  /** The RelayState to send back unchanged, if any. */
  relayState: string | undefined;
  xml: string;
}

export function readRedirectedAuthnRequest(location: string | URL): ReceivedAuthnRequest {
  const url = new URL(location);
  const encoded = url.searchParams.get('SAMLRequest');
  if (!encoded) throw new Error('no SAMLRequest in the redirect');
  const xml = inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
  const request = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
  const issuer = request.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'Issuer')[0];
  return {
    id: request.getAttribute('ID') ?? '',
    issuer: issuer?.textContent ?? '',
    acsUrl: request.getAttribute('AssertionConsumerServiceURL') ?? '',
    relayState: url.searchParams.get('RelayState') ?? undefined,
    xml,
  };
}

/** The metadata document of an identity provider (SAML Metadata 2.4.3) with these signing certificates. */
export function identityProviderMetadataXml(entityId: string, ssoUrl: string, certificateBodies: string[]): string {
  const keys = certificateBodies
    .map(
      (body) =>
        `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${body}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
    )
    .join('');
  return (
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}">` +
    `<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" WantAuthnRequestsSigned="false">` +
    keys +
    `<md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${ssoUrl}"/>` +
    `</md:IDPSSODescriptor></md:EntityDescriptor>`
  );
}
