import type { SocialVendor } from '../oauth2/social-vendor.js';
import { vendorScopes, type ScopeTranslation } from '../oauth2/vendor-scopes.js';
import { amazonProfileClaims } from './amazon-profile.js';

/** Login with Amazon's `profile` covers the name and the email: it has no scope of its own for email. */
const SCOPES: ScopeTranslation = { profile: ['profile'], email: ['profile'] };
/** Scopes that release `user_id`, without which nobody can be signed in. */
const SUBJECT_SCOPES = ['profile', 'profile:user_id'];

/**
 * Sign-in with an Amazon account (Social2), Login with Amazon
 * (https://developer.amazon.com/docs/login-with-amazon/authorization-code-grant.html): the
 * authorization request takes `code_challenge` (RECOMMENDED in Amazon's documentation),
 * then the customer profile, whose `user_id` is the subject. Amazon's token type is
 * `bearer` in lower case, which RFC 6749 7.1 allows (openid-client compares it without
 * case). Amazon sends no RFC 9207 `iss`; one that arrives must name the authorization
 * endpoint's origin. Amazon issues a refresh token with every authorization code grant.
 */
export const amazonAccount: SocialVendor = {
  endpoints: {
    AuthorizationEndpoint: 'https://www.amazon.com/ap/oa',
    TokenEndpoint: 'https://api.amazon.com/auth/o2/token',
    /** The customer profile: `user_id`, and `name` and `email` with the `profile` scope. */
    UserInformationEndpoint: 'https://api.amazon.com/user/profile',
  },
  scopes: (configured) => {
    const scopes = vendorScopes(configured, SCOPES);
    return scopes.some((scope) => SUBJECT_SCOPES.includes(scope)) ? scopes : ['profile', ...scopes];
  },
  readUser: (api) => api.getJson(api.endpoint('UserInformationEndpoint'), {}, amazonProfileClaims),
  refreshes: true,
};
