/**
 * A local server shaped like GitHub OAuth apps and the REST API: authorization
 * (`/login/oauth/authorize`, with the RFC 9207 `iss` GitHub has sent), the token endpoint
 * (`/login/oauth/access_token`: form-encoded unless JSON is asked for, errors with HTTP
 * 200), `/user` and `/user/emails` (refused without a User-Agent; 404 without the
 * `user:email` scope). For the demo and the tests; it is not GitHub.
 */
import {
  jsonReply,
  startVendorServer,
  type VendorAccounts,
  type VendorReply,
  type VendorServer,
  type VendorServerOptions,
  type VendorShape,
} from './vendor-server.js';

const DOCS = 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors';
/** GitHub's names for the RFC 6749 5.2 codes. */
const TOKEN_ERRORS: Record<string, { error: string; description: string }> = {
  invalid_client: {
    error: 'incorrect_client_credentials',
    description: 'The client_id and/or client_secret passed are incorrect.',
  },
  invalid_grant: { error: 'bad_verification_code', description: 'The code passed is incorrect or expired.' },
  redirect_uri_mismatch: {
    error: 'redirect_uri_mismatch',
    description: 'The redirect_uri MUST match the registered callback URL for this application.',
  },
};
const MESSAGES: Record<number, string> = { 401: 'Bad credentials', 403: 'Forbidden', 404: 'Not Found' };

/**
 * `/user` and `/user/emails` of the demo accounts. The admin's public profile email is
 * unverified and differs from the verified primary; the user has no name (the login
 * stands in), and an unverified primary with a verified second address.
 */
export function githubAccounts(): VendorAccounts {
  const user = (fields: Record<string, unknown>) => ({
    node_id: `U_kgDO${String(fields.id)}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${String(fields.id)}?v=4`,
    type: 'User',
    site_admin: false,
    company: null,
    blog: '',
    location: null,
    bio: null,
    public_repos: 2,
    created_at: '2020-01-01T00:00:00Z',
    ...fields,
  });
  return {
    admin: {
      userInformation: user({ login: 'ada-admin', id: 1001, name: 'Ada Admin', email: 'ada.public@example.test' }),
      userEmails: [
        { email: 'ada.public@example.test', primary: false, verified: false, visibility: null },
        { email: 'ada@example.test', primary: true, verified: true, visibility: 'private' },
      ],
    },
    user: {
      userInformation: user({ login: 'uma-user', id: 1002, name: null, email: null }),
      userEmails: [
        { email: 'uma-old@example.test', primary: true, verified: false, visibility: 'private' },
        { email: 'uma@example.test', primary: false, verified: true, visibility: null },
      ],
    },
  };
}

/** JSON when the request accepts it, else GitHub's default: form-encoded. */
function tokenBody(fields: Record<string, string>, accept: string | undefined): VendorReply {
  if ((accept ?? '').includes('application/json')) return jsonReply(200, fields);
  return {
    status: 200,
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body: new URLSearchParams(fields).toString(),
  };
}

export const githubShape: VendorShape = {
  title: 'GitHub-shaped sign-in (local test server)',
  paths: {
    authorization: '/login/oauth/authorize',
    token: '/login/oauth/access_token',
    userInformation: '/user',
    userEmails: '/user/emails',
  },
  accounts: githubAccounts,
  requiresResponseType: false,
  responseParameters: (origin) => ({ iss: `${origin}/login/oauth` }),
  deniedParameters: {
    error_description: 'The user has denied your application access.',
    error_uri:
      'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-authorization-request-errors/#access-denied',
  },
  // GitHub lists the granted scopes comma-separated.
  tokenReply: (tokens, grant, accept) =>
    tokenBody({ access_token: tokens.accessToken, scope: grant.scopes.join(','), token_type: 'bearer' }, accept),
  // Always HTTP 200, whatever went wrong.
  tokenError: (error, _status, accept) => {
    const known = TOKEN_ERRORS[error] ?? { error, description: 'The request could not be completed.' };
    return tokenBody(
      { error: known.error, error_description: known.description, error_uri: `${DOCS}#${known.error}` },
      accept,
    );
  },
  resourceError: (status) =>
    jsonReply(status, {
      message: MESSAGES[status] ?? 'Server Error',
      documentation_url: 'https://docs.github.com/rest',
      status: String(status),
    }),
  resourceScopes: { userEmails: ['user:email', 'user'] },
  missingUserAgent: {
    status: 403,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header (https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required). Check https://developer.github.com for other possible causes.\n',
  },
  resourceContentType: 'application/json; charset=utf-8',
};

export function startGitHubShapedServer(options: VendorServerOptions): Promise<VendorServer> {
  return startVendorServer(githubShape, options);
}
