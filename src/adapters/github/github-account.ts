import type { SocialVendor } from '../oauth2/social-vendor.js';
import { vendorScopes, type ScopeTranslation } from '../oauth2/vendor-scopes.js';
import { tokenErrorsAsStatus400 } from './github-token-errors.js';
import { githubUserClaims, verifiedGitHubEmail } from './github-user.js';

const SCOPES: ScopeTranslation = { profile: ['read:user'], email: ['user:email'] };
/** Scopes that let `GET /user/emails` answer (without one, GitHub answers 404). */
const EMAIL_SCOPES = ['user:email', 'user'];
/**
 * GitHub's REST API refuses a request without a User-Agent (it asks for the application's
 * name), and asks for its media type and a pinned API version.
 */
const API_HEADERS = {
  'user-agent': 'Gatehouse',
  accept: 'application/vnd.github+json',
  'x-github-api-version': '2022-11-28',
};

/**
 * Sign-in with a GitHub account (Social3), GitHub OAuth apps
 * (https://docs.github.com/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps): the
 * authorization code grant with PKCE (S256, supported since July 2025), then `GET /user`,
 * whose numeric `id` is the subject (never the renamable `login`), and `GET /user/emails`
 * for a verified address. GitHub's token endpoint answers form-encoded unless asked for
 * JSON (openid-client always asks) and reports errors with HTTP 200 (see
 * github-token-errors.ts). GitHub's issuer, `https://github.com/login/oauth`, is the
 * authorization endpoint's parent: GitHub has sent it as the RFC 9207 `iss`, which must
 * then match. OAuth apps' tokens do not expire and come with no refresh token.
 */
export const githubAccount: SocialVendor = {
  endpoints: {
    AuthorizationEndpoint: 'https://github.com/login/oauth/authorize',
    TokenEndpoint: 'https://github.com/login/oauth/access_token',
    UserInformationEndpoint: 'https://api.github.com/user',
    UserEmailsEndpoint: 'https://api.github.com/user/emails',
  },
  issuer: parentOf,
  scopes: (configured) => vendorScopes(configured, SCOPES),
  async readUser(api) {
    const claims: Record<string, string> = await api.getJson(
      api.endpoint('UserInformationEndpoint'),
      API_HEADERS,
      githubUserClaims,
    );
    // GitHub names the granted scopes comma-separated; without any, what was asked for.
    const granted = typeof api.tokens.scope === 'string' ? api.tokens.scope.split(/[,\s]+/) : api.requestedScopes;
    if (granted.some((scope) => EMAIL_SCOPES.includes(scope))) {
      const email = await api.getJson(api.endpoint('UserEmailsEndpoint'), API_HEADERS, verifiedGitHubEmail);
      if (email !== undefined) claims.email = email;
    }
    return claims;
  },
  adjustFetch: tokenErrorsAsStatus400,
  refreshes: false,
};

/** `https://github.com/login/oauth/authorize` -> `https://github.com/login/oauth` (also GitHub Enterprise Server's). */
function parentOf(endpoint: string): string {
  const url = new URL(endpoint);
  url.search = '';
  url.hash = '';
  url.pathname = url.pathname.replace(/\/[^/]*$/, '');
  return url.href;
}
