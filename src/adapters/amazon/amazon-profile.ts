import { stringFieldClaims } from '../oauth2/untrusted-json.js';

const WHAT = 'Amazon customer profile';
/** Present with the `profile` scope (`name`, `email`) or the `postal_code` scope. */
const OPTIONAL_FIELDS = ['name', 'email', 'postal_code'] as const;

/**
 * The claims of Login with Amazon's customer profile
 * (https://developer.amazon.com/docs/login-with-amazon/obtain-customer-profile.html):
 * `user_id` (`amzn1.account....`, required), and `name`, `email` and `postal_code` when
 * the scopes released them. Amazon sends no `sub`.
 */
export function amazonProfileClaims(json: unknown): Record<string, string> {
  return stringFieldClaims(json, WHAT, 'user_id', OPTIONAL_FIELDS);
}
