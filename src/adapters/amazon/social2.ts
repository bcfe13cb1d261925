import { ClaimTypes } from '../../domain/claims/claim-types.js';
import { socialProvider } from '../oauth2/social-provider.js';

/** Social2: an Amazon account, through Login with Amazon. */
export const social2 = socialProvider({
  key: 'Social2',
  vendorName: 'Amazon',
  callbackPath: '/signin-social2',
  scopes: ['profile', 'email'],
  // Login with Amazon's customer profile (`GET /user/profile`): `user_id` is the account id
  // (`amzn1.account....`); there is no `sub`.
  claimMappings: [
    { source: 'user_id', target: ClaimTypes.Subject },
    { source: 'name', target: ClaimTypes.Name },
    { source: 'email', target: ClaimTypes.Email },
  ],
  vendor: async () => (await import('./amazon-account.js')).amazonAccount,
});
