import type { ProviderCommonSettings } from '../../domain/settings/settings.js';

/** The Saml2 provider's section (`Authentication:Providers:Saml2`). */
export interface Saml2Settings extends ProviderCommonSettings {
  EntityId: string;
  MetadataUrl: string;
  /**
   * The identity provider's metadata document itself (XML), when it is given rather than
   * fetched (a file downloaded from the identity provider): read instead of MetadataUrl,
   * by the same reader, never refreshed; empty: fetched from MetadataUrl.
   */
  IdpMetadata: string;
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
  /** This service provider's signing certificate (PEM), published in its metadata; empty: none. */
  SigningCertificate: string;
  /** Its private key (PEM): a secret. Signs AuthnRequests and single-logout messages. */
  SigningKey: string;
  /** Sign AuthnRequests (HTTP-Redirect query signature, RSA-SHA256). */
  SignAuthnRequests: boolean;
  /** SAML 2.0 Single Logout with the identity provider (needs the signing key). */
  SingleLogout: boolean;
  /** Where the identity provider's LogoutRequests and LogoutResponses arrive. */
  SingleLogoutPath: string;
}
