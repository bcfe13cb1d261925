import { stringFieldClaims } from '../oauth2/untrusted-json.js';

const WHAT = 'Microsoft Graph user';
/** Nullable strings of Graph's user resource that name the person (https://learn.microsoft.com/graph/api/resources/user). */
const OPTIONAL_FIELDS = ['displayName', 'givenName', 'surname', 'mail', 'userPrincipalName'] as const;

/**
 * The claims of Graph's `GET /me`: `id` (the user's object id, required) and the naming
 * fields it has. `mail` is null for many personal accounts; the claims table then reads
 * the email from `userPrincipalName`. Other fields (phones, office, job title) are not
 * kept.
 */
export function graphUserClaims(json: unknown): Record<string, string> {
  return stringFieldClaims(json, WHAT, 'id', OPTIONAL_FIELDS);
}
