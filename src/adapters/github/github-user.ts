import {
  jsonArray,
  jsonObject,
  malformed,
  optionalString,
  requiredBoolean,
  requiredInteger,
  requiredString,
} from '../oauth2/untrusted-json.js';

const USER = 'GitHub user';
const EMAILS = 'GitHub email list';

/**
 * The claims of GitHub's `GET /user` (https://docs.github.com/rest/users/users): the
 * numeric `id` (permanent; as text, like every claim), `login` (renamable, and reusable
 * by someone else after a rename: a name, never an identifier) and `name` when set. The
 * profile's public `email` is not kept: it is not known to be verified, and the email
 * claim comes from `GET /user/emails` only.
 */
export function githubUserClaims(json: unknown): Record<string, string> {
  const user = jsonObject(json, USER);
  const id = requiredInteger(user, 'id', USER);
  if (id <= 0) throw malformed(USER, 'has an "id" that is not positive');
  const claims: Record<string, string> = { id: String(id), login: requiredString(user, 'login', USER) };
  const name = optionalString(user, 'name', USER);
  if (name !== undefined) claims.name = name;
  return claims;
}

/**
 * The address to use from GitHub's `GET /user/emails`
 * (https://docs.github.com/rest/users/emails): only a `verified` one, the primary when it
 * is verified, else the first verified; undefined when none is. Every entry is checked,
 * so a list with a malformed entry fails as a whole.
 */
export function verifiedGitHubEmail(json: unknown): string | undefined {
  const entries = jsonArray(json, EMAILS).map((item) => {
    const entry = jsonObject(item, EMAILS);
    return {
      email: requiredString(entry, 'email', EMAILS),
      primary: requiredBoolean(entry, 'primary', EMAILS),
      verified: requiredBoolean(entry, 'verified', EMAILS),
    };
  });
  const verified = entries.filter((entry) => entry.verified);
  return (verified.find((entry) => entry.primary) ?? verified[0])?.email;
}
