import type { ProviderCommonSettings } from '../../domain/settings/settings.js';

/** The OpenIdConnect provider's section (`Authentication:Providers:OpenIdConnect`). */
export interface OpenIdConnectSettings extends ProviderCommonSettings {
  Authority: string;
  ClientId: string;
  ClientSecret: string;
  CallbackPath: string;
  ResponseType: string;
  /** How the provider returns its answer: `query` (a redirect) or `form_post` (a form its page POSTs). */
  ResponseMode: 'query' | 'form_post';
  SaveTokens: boolean;
  Scopes: string[];
  /** End the provider session too on logout (RP-initiated logout) when the provider supports it. */
  SignOutAtProvider: boolean;
  /**
   * Where the provider POSTs its logout tokens (OpenID Connect Back-Channel Logout 1.0);
   * empty turns back-channel logout off.
   */
  BackchannelLogoutPath: string;
  /** Also accept logout tokens typed `JWT` (providers that predate `logout+jwt`); off by default. */
  BackchannelLogoutAcceptJwtTyp: boolean;
  /**
   * Where the provider's logout page points an iframe with `iss` and `sid` (OpenID Connect
   * Front-Channel Logout 1.0); empty turns front-channel logout off.
   */
  FrontchannelLogoutPath: string;
}
