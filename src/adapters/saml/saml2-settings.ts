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
}
