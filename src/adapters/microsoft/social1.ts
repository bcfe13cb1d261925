import { ClaimTypes } from '../../domain/claims/claim-types.js';
import { socialProvider } from '../oauth2/social-provider.js';

/** Social1: a Microsoft account (personal, work or school), read from Microsoft Graph. */
export const social1 = socialProvider({
  key: 'Social1',
  vendorName: 'Microsoft',
  callbackPath: '/signin-social1',
  scopes: [],
  // Microsoft Graph `GET /me`: `id` is the user's object id, stable and never reassigned;
  // `mail` is often null for personal accounts, hence the `userPrincipalName` fallback
  // (ASP.NET Core's MicrosoftAccount handler does the same).
  claimMappings: [
    { source: 'id', target: ClaimTypes.Subject },
    { source: 'displayName', target: ClaimTypes.Name },
    { source: 'mail', target: ClaimTypes.Email },
    { source: 'userPrincipalName', target: ClaimTypes.Email, fallback: true },
  ],
  rules: (settings, check) =>
    // Microsoft then issues an ID token whose issuer names the user's tenant, which no
    // fixed configuration can check: the user is read from Microsoft Graph instead.
    settings.Scopes.includes('openid')
      ? check.problem(
          'Scopes',
          'must not include "openid": Social1 reads the user from Microsoft Graph and takes no ID token (for OpenID Connect with your own tenant, use the OpenIdConnect provider)',
        )
      : [],
  vendor: async () => (await import('./microsoft-account.js')).microsoftAccount,
});
