import type { ProviderCommonSettings } from '../../domain/settings/settings.js';

/** The client authentication methods offered (OIDC Core 9; `client_secret_jwt` and `none` are not). */
export const CLIENT_AUTHENTICATION_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const;
export type ClientAuthenticationMethod = (typeof CLIENT_AUTHENTICATION_METHODS)[number];

/** The OpenIdConnect provider's section (`Authentication:Providers:OpenIdConnect`). */
export interface OpenIdConnectSettings extends ProviderCommonSettings {
  Authority: string;
  ClientId: string;
  /** For `client_secret_basic` and `client_secret_post` only. */
  ClientSecret: string;
  /** How Gatehouse authenticates to the token endpoint (and the PAR endpoint): OIDC Core 9. */
  ClientAuthentication: ClientAuthenticationMethod;
  /** `private_key_jwt`: a PEM certificate of `ClientKey`, optional (its thumbprints go in the assertion's header). */
  ClientCertificate: string;
  /** `private_key_jwt`: the private key, as unencrypted PEM or a private JWK (JSON). A secret. */
  ClientKey: string;
  /** `private_key_jwt`: the assertion's `aud`, the provider's issuer (the default) or its token endpoint (Entra ID, Okta). */
  ClientAssertionAudience: 'issuer' | 'token_endpoint';
  /** Pushed Authorization Requests (RFC 9126) whenever the provider advertises a PAR endpoint; true by default. */
  UsePushedAuthorization: boolean;
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
