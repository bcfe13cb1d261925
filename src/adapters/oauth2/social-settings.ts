import type { ProviderCommonSettings } from '../../domain/settings/settings.js';

/**
 * A social provider's section: the specification's keys (ClientId, ClientSecret,
 * CallbackPath, Scopes) and Gatehouse's own: `SaveTokens` (default false: the vendor's
 * tokens are dropped after sign-in) and one override per vendor endpoint (empty means the
 * vendor's production endpoint). An empty `DisplayName` shows the vendor's name.
 */
export type SocialSettings<Extra extends string = never> = ProviderCommonSettings & {
  ClientId: string;
  ClientSecret: string;
  CallbackPath: string;
  /** Generic names (`profile`, `email`) are translated to the vendor's scopes; others pass verbatim. */
  Scopes: string[];
  SaveTokens: boolean;
  AuthorizationEndpoint: string;
  TokenEndpoint: string;
  UserInformationEndpoint: string;
} & { [K in Extra]: string };
