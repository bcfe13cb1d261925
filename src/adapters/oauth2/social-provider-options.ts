import type { Clock } from '../../application/ports/clock.js';
import type { CallbackEndpoint, IdentityProviderInfo } from '../../application/ports/identity-provider.js';
import type { Logger } from '../../application/ports/logger.js';
import type { ProviderKey, SocialSettings } from '../../domain/settings/settings.js';
import type { AuthorizationCodeFlowOptions } from './authorization-code-flow.js';

/** What the composition root gives every social provider's adapter. */
export interface SocialProviderOptions<S extends SocialSettings = SocialSettings> {
  key: ProviderKey;
  settings: S;
  /** publicOrigin + CallbackPath, built by the caller from configuration, never from the Host header. */
  redirectUri: string;
  /** Time-out of every outbound call (token, user information, refresh). */
  timeoutMs: number;
  logger: Logger;
  clock: Clock;
}

/**
 * An OAuth 2.0 redirect answer arrives as a GET (RFC 6749 4.1.2); none of these vendors
 * POSTs it, so a POST at the callback path is refused (405) before any body is read.
 */
export const REDIRECT_CALLBACK: CallbackEndpoint = Object.freeze({
  messageMethods: Object.freeze(['GET'] as const),
  maxBodyBytes: 0,
});

/** The provider as the login page lists it: an empty DisplayName shows the vendor's name. */
export function socialProviderInfo(options: SocialProviderOptions, vendorName: string): IdentityProviderInfo {
  const { settings } = options;
  return {
    key: options.key,
    scheme: settings.Scheme,
    displayName: settings.DisplayName.trim() === '' ? vendorName : settings.DisplayName,
    callbackPath: settings.CallbackPath,
  };
}

/** The parts of the code flow's options that come straight from the provider's settings. */
export function codeFlowBasics(
  options: SocialProviderOptions,
): Pick<
  AuthorizationCodeFlowOptions,
  'provider' | 'clientId' | 'clientSecret' | 'redirectUri' | 'timeoutMs' | 'logger' | 'clock'
> {
  return {
    provider: options.key,
    clientId: options.settings.ClientId,
    clientSecret: options.settings.ClientSecret,
    redirectUri: options.redirectUri,
    timeoutMs: options.timeoutMs,
    logger: options.logger,
    clock: options.clock,
  };
}

/**
 * True when an endpoint is plain http. The startup rules accept that only for a loopback
 * host outside production (a local server standing in for the vendor); openid-client
 * refuses it unless told.
 */
export function usesPlainHttp(...endpoints: string[]): boolean {
  return endpoints.some((endpoint) => new URL(endpoint).protocol === 'http:');
}
