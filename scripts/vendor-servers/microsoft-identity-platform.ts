/**
 * A local server shaped like the Microsoft identity platform v2.0 (`common` tenant) and
 * Microsoft Graph `/me`: same paths, field names and error formats (token errors with
 * `error_codes`, `trace_id` and `correlation_id`; Graph errors as `{ error: { code,
 * message, innerError } }` with a WWW-Authenticate challenge on 401). For the demo and
 * the tests; it is not Microsoft.
 */
import { randomUUID } from 'node:crypto';
import {
  jsonReply,
  startVendorServer,
  type VendorAccounts,
  type VendorServer,
  type VendorServerOptions,
  type VendorShape,
} from './vendor-server.js';

const GRAPH_CONTENT_TYPE =
  'application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8';

/** AADSTS numbers the identity platform reports for each refusal. */
const AADSTS: Record<string, { code: number; text: string }> = {
  invalid_client: { code: 7000215, text: 'Invalid client secret provided.' },
  invalid_grant: { code: 70008, text: 'The provided authorization code or refresh token has expired or is invalid.' },
  redirect_uri_mismatch: { code: 50011, text: 'The redirect URI specified in the request does not match.' },
  unsupported_grant_type: { code: 70003, text: 'The app requested an unsupported grant type.' },
};

/** Graph's `/me` of the two demo accounts: a work account with mail, a personal one without. */
export function microsoftAccounts(): VendorAccounts {
  const me = (fields: Record<string, unknown>) => ({
    '@odata.context': 'https://graph.microsoft.com/v1.0/$metadata#users/$entity',
    businessPhones: [],
    jobTitle: null,
    mobilePhone: null,
    officeLocation: null,
    preferredLanguage: 'en-GB',
    ...fields,
  });
  return {
    admin: {
      userInformation: me({
        displayName: 'Ada Admin',
        givenName: 'Ada',
        surname: 'Admin',
        mail: 'ada@example.test',
        userPrincipalName: 'ada.admin@contoso.example',
        id: '6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f',
      }),
    },
    user: {
      userInformation: me({
        displayName: 'Uma User',
        givenName: 'Uma',
        surname: 'User',
        mail: null,
        userPrincipalName: 'uma@example.test',
        id: '00000000-0000-0000-4d2a-7be91c3f5a60',
      }),
    },
  };
}

export const microsoftShape: VendorShape = {
  title: 'Microsoft-shaped sign-in (local test server)',
  paths: {
    authorization: '/common/oauth2/v2.0/authorize',
    token: '/common/oauth2/v2.0/token',
    userInformation: '/v1.0/me',
  },
  accounts: microsoftAccounts,
  requiresResponseType: true,
  responseParameters: () => ({ session_state: randomUUID() }),
  deniedParameters: {
    error_subcode: 'cancel',
    error_description: 'AADSTS65004: User declined to consent to access the app.',
  },
  tokenReply: (tokens, grant) =>
    jsonReply(200, {
      token_type: 'Bearer',
      scope: grant.scopes.join(' '),
      expires_in: 3599,
      ext_expires_in: 3599,
      access_token: tokens.accessToken,
      // Only with offline_access, as the identity platform does.
      ...(grant.scopes.includes('offline_access') ? { refresh_token: tokens.refreshToken } : {}),
    }),
  tokenError: (error, status) => {
    const known = AADSTS[error] ?? { code: 70000, text: 'The request was refused.' };
    const traceId = randomUUID();
    const correlationId = randomUUID();
    const timestamp = new Date()
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, 'Z');
    return jsonReply(status, {
      error: error === 'redirect_uri_mismatch' ? 'invalid_request' : error,
      error_description: `AADSTS${known.code}: ${known.text} Trace ID: ${traceId} Correlation ID: ${correlationId} Timestamp: ${timestamp}`,
      error_codes: [known.code],
      timestamp,
      trace_id: traceId,
      correlation_id: correlationId,
      error_uri: `https://login.microsoftonline.com/error?code=${known.code}`,
    });
  },
  resourceError: (status) => {
    const code =
      status === 401 ? 'InvalidAuthenticationToken' : status === 404 ? 'Request_ResourceNotFound' : 'generalException';
    const reply = jsonReply(
      status,
      {
        error: {
          code,
          message: status === 401 ? 'Access token validation failure. Invalid audience.' : 'The request failed.',
          innerError: {
            date: new Date().toISOString().replace(/\.\d+Z$/, ''),
            'request-id': randomUUID(),
            'client-request-id': randomUUID(),
          },
        },
      },
      'application/json',
    );
    if (status === 401) {
      reply.headers['www-authenticate'] =
        'Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", client_id="00000003-0000-0000-c000-000000000000"';
    }
    return reply;
  },
  resourceContentType: GRAPH_CONTENT_TYPE,
};

export function startMicrosoftShapedServer(options: VendorServerOptions): Promise<VendorServer> {
  return startVendorServer(microsoftShape, options);
}
