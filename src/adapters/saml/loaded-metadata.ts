import type { ObserveRequest } from '../outbound-requests.js';
import type { IdentityProviderInstance } from 'samlify';
import type { IdentityProviderMetadata, MetadataTrust } from './identity-provider-metadata.js';
import { fetchMetadata } from './metadata-fetch.js';
import { readMetadata } from './metadata-reader.js';
import type { Saml2Settings } from './saml2-settings.js';
import { samlifyIdentityProvider } from './samlify-entities.js';
import { metadataRefusal } from './saml-refusals.js';

/** The identity provider's metadata as read, and samlify's view of it. */
export interface LoadedMetadata {
  metadata: IdentityProviderMetadata;
  /** One samlify identity provider per signing certificate, by certificate body. */
  entities: Map<string, IdentityProviderInstance>;
}

/**
 * Fetches `MetadataUrl` (bounded by `MetadataMaxBytes` and the time-out), or takes the
 * document `IdpMetadata` holds (bounded by the startup rules), reads it as `trust` says
 * (the entity of an aggregate, its signature) with the same reader either way, and builds
 * one samlify identity provider per signing certificate, so that samlify checks a response
 * against the certificate that signed it. Any failure is an `idp.*` refusal naming what
 * was wrong.
 */
export async function loadMetadata(
  settings: Pick<Saml2Settings, 'MetadataUrl' | 'MetadataMaxBytes' | 'IdpMetadata'>,
  timeoutMs: number,
  now: number,
  trust: MetadataTrust,
  observe?: ObserveRequest,
  fetchThrough: typeof fetch = fetch,
): Promise<LoadedMetadata> {
  const xml =
    settings.IdpMetadata.trim() !== ''
      ? settings.IdpMetadata
      : await fetchMetadata(settings.MetadataUrl, timeoutMs, settings.MetadataMaxBytes, observe, fetchThrough);
  const metadata = await readMetadata(xml, now, trust);
  const entities = new Map<string, IdentityProviderInstance>();
  try {
    for (const certificate of metadata.signingCertificates) {
      entities.set(certificate.body, samlifyIdentityProvider(metadata, certificate));
    }
  } catch {
    throw metadataRefusal('samlify could not read the values taken from it.');
  }
  return { metadata, entities };
}
