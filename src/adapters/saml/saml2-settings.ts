import type { ProviderCommonSettings } from '../../domain/settings/settings.js';

/** The Saml2 provider's section (`Authentication:Providers:Saml2`). */
export interface Saml2Settings extends ProviderCommonSettings {
  EntityId: string;
  MetadataUrl: string;
  ModulePath: string;
  LoadMetadata: boolean;
  RequireSignedAssertions: boolean;
  ValidateCertificates: boolean;
  /** PEM certificate published for encryption; empty: no encryption key (see encryption-keys.ts). */
  EncryptionCertificate: string;
  /** PEM private key of EncryptionCertificate (a secret). */
  EncryptionKey: string;
  /** A second pair for key rollover: published and tried too. */
  EncryptionCertificate2: string;
  EncryptionKey2: string;
  /** Refuse a plain (unencrypted) assertion; needs an encryption key. */
  RequireEncryptedAssertions: boolean;
  /** Accept responses that answer no request of ours (IdP-initiated sign-in, from a portal tile). */
  AllowIdpInitiated: boolean;
  /** The identity provider's entityID in a federation aggregate; empty: the aggregate's only identity provider. */
  IdpEntityId: string;
  /** PEM certificate whose key must have signed the metadata document's root; empty: trusted through TLS alone. */
  MetadataSigningCertificate: string;
  /** The largest metadata document read, in bytes. */
  MetadataMaxBytes: number;
  /** Where an IdP-initiated sign-in lands when its RelayState is not a local URL: a local URL. */
  IdpInitiatedReturnUrl: string;
}
