/**
 * A local server shaped like Login with Amazon: the authorization page (`/ap/oa`), the
 * token endpoint (`/auth/o2/token`, token type `bearer` in lower case, a refresh token
 * with every grant) and the customer profile (`/user/profile`: `user_id`, `name`,
 * `email`), with Amazon's `{ error, error_description }` errors. For the demo and the
 * tests; it is not Amazon.
 */
import {
  jsonReply,
  startVendorServer,
  type VendorAccounts,
  type VendorServer,
  type VendorServerOptions,
  type VendorShape,
} from './vendor-server.js';

const CONTENT_TYPE = 'application/json;charset=UTF-8';

const DESCRIPTIONS: Record<string, string> = {
  invalid_client: 'Client authentication failed',
  invalid_grant: 'The request has an invalid grant parameter : code',
  redirect_uri_mismatch: 'The redirect URI is not allowed for this client',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server',
};

export function amazonAccounts(): VendorAccounts {
  return {
    admin: {
      userInformation: {
        user_id: 'amzn1.account.AEADAADMIN7QXZ4J3K2MW5',
        name: 'Ada Admin',
        email: 'ada@example.test',
      },
    },
    user: {
      userInformation: { user_id: 'amzn1.account.AEUMAUSER5H2N8P6R4TBV', name: 'Uma User', email: 'uma@example.test' },
    },
  };
}

export const amazonShape: VendorShape = {
  title: 'Amazon-shaped sign-in (local test server)',
  paths: { authorization: '/ap/oa', token: '/auth/o2/token', userInformation: '/user/profile' },
  accounts: amazonAccounts,
  requiresResponseType: true,
  responseParameters: () => ({}),
  deniedParameters: { error_description: 'The customer or authorization service denied the request.' },
  tokenReply: (tokens) =>
    jsonReply(
      200,
      { access_token: tokens.accessToken, refresh_token: tokens.refreshToken, token_type: 'bearer', expires_in: 3600 },
      CONTENT_TYPE,
    ),
  tokenError: (error, status) =>
    jsonReply(
      status,
      {
        error: error === 'redirect_uri_mismatch' ? 'invalid_grant' : error,
        error_description: DESCRIPTIONS[error] ?? 'The request could not be completed',
      },
      CONTENT_TYPE,
    ),
  resourceError: (status) =>
    jsonReply(
      status,
      status === 401 || status === 400
        ? { error: 'invalid_token', error_description: 'The request has an invalid parameter : access_token' }
        : { error: 'ServerError', error_description: 'The server encountered a runtime error' },
      CONTENT_TYPE,
    ),
  resourceContentType: CONTENT_TYPE,
};

export function startAmazonShapedServer(options: VendorServerOptions): Promise<VendorServer> {
  return startVendorServer(amazonShape, options);
}
