/**
 * A service provider known by its metadata, for the demo SAML identity provider: a
 * Gatehouse of your own on this machine (`npm start` with your settings) can sign in
 * through the demo by setting its EntityId to the URL of its own metadata (Gatehouse serves
 * it at PublicOrigin + ModulePath, `/Saml2/Acs`). Loopback addresses only, read with a short
 * time-out and a size bound: the demo never reaches beyond this machine. Development only;
 * nothing in src/ imports it.
 */
import { DOMParser } from '@xmldom/xmldom';

const METADATA = 'urn:oasis:names:tc:SAML:2.0:metadata';
const SIGNATURE = 'http://www.w3.org/2000/09/xmldsig#';
const POST_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const MAX_METADATA_BYTES = 256 * 1024;

/** What the demo identity provider needs of a service provider (its DemoServiceProvider). */
export interface ServiceProviderDescription {
  entityId: string;
  acsUrl: string;
  encryptionCertificatePem?: string;
  singleLogoutUrl?: string;
  signingCertificatePem?: string;
}

/** True for http(s) URLs on this machine: 127.0.0.0/8, ::1 and localhost. */
export function isLoopbackUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  return url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
}

/**
 * Reads the metadata at `entityId` (an entity ID that is its own metadata URL) and
 * describes the service provider; undefined when the URL is not on loopback, does not
 * answer, or is not the SP metadata of that very entity ID.
 */
export async function serviceProviderFromMetadata(entityId: string): Promise<ServiceProviderDescription | undefined> {
  if (!isLoopbackUrl(entityId)) return undefined;
  let xml: string;
  try {
    const response = await fetch(entityId, { redirect: 'error', signal: AbortSignal.timeout(2_000) });
    xml = await response.text();
    if (!response.ok || xml.length > MAX_METADATA_BYTES) return undefined;
  } catch {
    return undefined;
  }
  return readServiceProviderMetadata(xml, entityId);
}

const ignore = () => undefined;

/** The description in an SP metadata document whose entityID is `entityId`; undefined otherwise. */
export function readServiceProviderMetadata(xml: string, entityId: string): ServiceProviderDescription | undefined {
  if (/<!DOCTYPE/i.test(xml)) return undefined;
  const root = new DOMParser({ errorHandler: { warning: ignore, error: ignore, fatalError: ignore } }).parseFromString(
    xml,
    'text/xml',
  ).documentElement;
  if (!root || root.localName !== 'EntityDescriptor' || root.getAttribute('entityID') !== entityId) return undefined;
  const descriptor = root.getElementsByTagNameNS(METADATA, 'SPSSODescriptor')[0];
  if (!descriptor) return undefined;
  const locationOf = (name: string, binding: string) =>
    Array.from(descriptor.getElementsByTagNameNS(METADATA, name))
      .find((element) => element.getAttribute('Binding') === binding)
      ?.getAttribute('Location') ?? undefined;
  const acsUrl = locationOf('AssertionConsumerService', POST_BINDING);
  if (!acsUrl) return undefined;
  const certificateOf = (use: string) => {
    const key = Array.from(descriptor.getElementsByTagNameNS(METADATA, 'KeyDescriptor')).find(
      (element) => element.getAttribute('use') === use,
    );
    const body = key?.getElementsByTagNameNS(SIGNATURE, 'X509Certificate')[0]?.textContent?.replace(/\s+/g, '');
    const lines = body?.match(/.{1,64}/g);
    return lines ? `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n` : undefined;
  };
  return {
    entityId,
    acsUrl,
    singleLogoutUrl: locationOf('SingleLogoutService', REDIRECT_BINDING),
    signingCertificatePem: certificateOf('signing'),
    encryptionCertificatePem: certificateOf('encryption'),
  };
}
