import type { ProviderCommonSettings } from '../../domain/settings/settings.js';

/** The Saml2 provider's section (`Authentication:Providers:Saml2`). */
export interface Saml2Settings extends ProviderCommonSettings {
  EntityId: string;
  MetadataUrl: string;
  ModulePath: string;
  LoadMetadata: boolean;
  RequireSignedAssertions: boolean;
  ValidateCertificates: boolean;
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
