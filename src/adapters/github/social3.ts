import { ClaimTypes } from '../../domain/claims/claim-types.js';
import { socialProvider } from '../oauth2/social-provider.js';

/** Social3: a GitHub account; the verified email comes from an endpoint of its own. */
export const social3 = socialProvider({
  key: 'Social3',
  vendorName: 'GitHub',
  callbackPath: '/signin-social3',
  scopes: ['profile', 'email'],
  extraEndpoints: ['UserEmailsEndpoint'],
  // GitHub `GET /user`: the numeric `id` is permanent, `login` can be renamed and reused,
  // so it is only a name when `name` is null. The adapter puts under `email` only a
  // verified address from `GET /user/emails`, never the profile's public email.
  claimMappings: [
    { source: 'id', target: ClaimTypes.Subject },
    { source: 'name', target: ClaimTypes.Name },
    { source: 'login', target: ClaimTypes.Name, fallback: true },
    { source: 'email', target: ClaimTypes.Email },
  ],
  vendor: async () => (await import('./github-account.js')).githubAccount,
});
