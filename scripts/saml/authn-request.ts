/**
 * Reads an AuthnRequest sent with the HTTP-Redirect binding (SAML Bindings 3.4.4.1:
 * DEFLATE, then base64, then URL-encoding), as an identity provider does. For the demo
 * identity provider and the tests; nothing in src/ imports it.
 */
import { verify } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';

export interface ReceivedAuthnRequest {
  id: string;
  issuer: string;
  acsUrl: string;
  /** The RelayState to send back unchanged, if any. */
  relayState: string | undefined;
  /** The NameID of the request's Subject, if it names one: who the service provider expects (SAML Core 3.4.1). */
  loginHint?: string;
  xml: string;
}

/** A message received with the HTTP-Redirect binding, as an identity provider reads it. */
export interface ReceivedRedirectMessage {
  field: 'SAMLRequest' | 'SAMLResponse';
  xml: string;
  document: Element;
  relayState: string | undefined;
  /** True when SigAlg is RSA-SHA256 and Signature verifies over the raw query with `certificatePem`. */
  signatureValid: (certificatePem: string) => boolean;
  sigAlg: string | undefined;
}

/**
 * Reads and inflates a redirect-binding message; its query signature is checked over the
 * parameters as they appear in the URL (SAML Bindings 3.4.4.1), with node:crypto alone.
 */
export function readRedirectedMessage(location: string | URL): ReceivedRedirectMessage {
  const url = new URL(location);
  const raw = new Map(
    url.search
      .slice(1)
      .split('&')
      .map((part) => [part.slice(0, part.indexOf('=')), part.slice(part.indexOf('=') + 1)] as const),
  );
  const field = raw.has('SAMLRequest') ? 'SAMLRequest' : 'SAMLResponse';
  const encoded = url.searchParams.get(field);
  if (!encoded) throw new Error('no SAML message in the redirect');
  const xml = inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
  const sigAlg = url.searchParams.get('SigAlg') ?? undefined;
  const signature = url.searchParams.get('Signature');
  const relay = raw.has('RelayState') ? `&RelayState=${raw.get('RelayState')}` : '';
  const signed = `${field}=${raw.get(field)}${relay}&SigAlg=${raw.get('SigAlg')}`;
  return {
    field,
    xml,
    document: new DOMParser().parseFromString(xml, 'text/xml').documentElement,
    relayState: url.searchParams.get('RelayState') ?? undefined,
    sigAlg,
    signatureValid: (certificatePem) =>
      sigAlg === 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256' &&
      signature !== null &&
      verify('sha256', Buffer.from(signed), certificatePem, Buffer.from(signature, 'base64')),
  };
}

export function readRedirectedAuthnRequest(location: string | URL): ReceivedAuthnRequest {
  const url = new URL(location);
  const encoded = url.searchParams.get('SAMLRequest');
  if (!encoded) throw new Error('no SAMLRequest in the redirect');
  const xml = inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
  const request = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
  const issuer = request.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'Issuer')[0];
  const subject = request.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'Subject')[0];
  const nameId = subject?.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'NameID')[0];
  return {
    id: request.getAttribute('ID') ?? '',
    issuer: issuer?.textContent ?? '',
    acsUrl: request.getAttribute('AssertionConsumerServiceURL') ?? '',
    relayState: url.searchParams.get('RelayState') ?? undefined,
    loginHint: nameId?.textContent ?? undefined,
    xml,
  };
}

/** What an identity provider's metadata may add: a SingleLogoutService, a demand for signed AuthnRequests. */
export interface MetadataExtras {
  /** The SingleLogoutService location for HTTP-Redirect (and HTTP-POST). */
  singleLogoutUrl?: string;
  wantAuthnRequestsSigned?: boolean;
}

/** The metadata document of an identity provider (SAML Metadata 2.4.3) with these signing certificates. */
export function identityProviderMetadataXml(
  entityId: string,
  ssoUrl: string,
  certificateBodies: string[],
  extras: MetadataExtras = {},
): string {
  const keys = certificateBodies
    .map(
      (body) =>
        `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${body}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
    )
    .join('');
  return (
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}">` +
    `<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" WantAuthnRequestsSigned="${extras.wantAuthnRequestsSigned === true}">` +
    keys +
    (extras.singleLogoutUrl
      ? ['HTTP-Redirect', 'HTTP-POST']
          .map(
            (binding) =>
              `<md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:${binding}" Location="${extras.singleLogoutUrl}"/>`,
          )
          .join('')
      : '') +
    `<md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${ssoUrl}"/>` +
    `</md:IDPSSODescriptor></md:EntityDescriptor>`
  );
}
