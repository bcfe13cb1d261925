import type { SocialVendor } from '../oauth2/social-vendor.js';
import { vendorScopes, type ScopeTranslation } from '../oauth2/vendor-scopes.js';
import { microsoftErrorDetails } from './microsoft-error-details.js';
import { graphUserClaims } from './microsoft-graph-user.js';

/** Graph's `GET /me` needs `User.Read`, which also releases the name and both email fields. */
const REQUIRED_SCOPES = ['User.Read'];
const SCOPES: ScopeTranslation = { profile: ['User.Read'], email: ['User.Read'] };

/**
 * Sign-in with a Microsoft account (Social1): the identity platform v2.0 at its `common`
 * endpoints (personal and work or school accounts), then the user from Microsoft Graph
 * `/me`, whose `id` is the subject (as ASP.NET Core's MicrosoftAccount handler does). No
 * `openid` scope, so no ID token: one from `common` names the user's own tenant as its
 * issuer, which no fixed configuration can check (the startup rules refuse `openid`).
 * Microsoft sends no RFC 9207 `iss`; one that arrives must name the authorization
 * endpoint's origin. Token errors carry `error_codes` and `trace_id`, which are logged.
 * Microsoft issues a refresh token when `offline_access` is among the Scopes.
 */
export const microsoftAccount: SocialVendor = {
  endpoints: {
    AuthorizationEndpoint: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
    TokenEndpoint: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    UserInformationEndpoint: 'https://graph.microsoft.com/v1.0/me',
  },
  scopes: (configured) => vendorScopes(configured, SCOPES, REQUIRED_SCOPES),
  readUser: (api) => api.getJson(api.endpoint('UserInformationEndpoint'), {}, graphUserClaims),
  errorDetails: microsoftErrorDetails,
  refreshes: true,
};
