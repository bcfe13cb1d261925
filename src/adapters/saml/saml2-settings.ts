import type { ProviderCommonSettings } from '../../domain/settings/settings.js';

/** The Saml2 provider's section (`Authentication:Providers:Saml2`). */
export interface Saml2Settings extends ProviderCommonSettings {
  EntityId: string;
  MetadataUrl: string;
  ModulePath: string;
  LoadMetadata: boolean;
  RequireSignedAssertions: boolean;
  ValidateCertificates: boolean;
}
