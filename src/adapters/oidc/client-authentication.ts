import { webcrypto } from 'node:crypto';
import * as client from 'openid-client';
import { GatehouseError } from '../../domain/errors.js';
import { isClientKeyProblem, readClientKey, type ClientKey } from './client-key.js';
import type { OpenIdConnectSettings } from './open-id-connect-settings.js';

/**
 * How Gatehouse authenticates to the provider's token and PAR endpoints
 * (`ClientAuthentication`, OIDC Core 9), with openid-client's own methods:
 *
 * - `client_secret_basic`: HTTP Basic with the client ID and secret each form-encoded
 *   first (RFC 6749 2.3.1), as the specification says and openid-client does. A provider
 *   that compares the encoded secret without decoding it (LemonLDAP::NG 2.16) refuses any
 *   secret with `-`, `_`, `.`, `~` or another character the encoding changes: choose
 *   `client_secret_post` for it rather than a non-standard encoding here.
 * - `client_secret_post`: the ID and secret as form fields, as they are.
 * - `private_key_jwt`: a JWT signed with `ClientKey` (RFC 7523 3), with the key's `kid` and
 *   the certificate's thumbprints in its header when known, and `aud` the issuer (the
 *   current recommendation, and openid-client's) or the token endpoint
 *   (`ClientAssertionAudience`, for Entra ID and Okta, which document that).
 */
export async function clientAuthentication(settings: OpenIdConnectSettings): Promise<client.ClientAuth> {
  switch (settings.ClientAuthentication) {
    case 'client_secret_basic':
      return client.ClientSecretBasic(settings.ClientSecret);
    case 'client_secret_post':
      return client.ClientSecretPost(settings.ClientSecret);
    case 'private_key_jwt':
      return privateKeyJwt(settings);
  }
}

/** The algorithm `private_key_jwt` signs with, once the startup rules accepted the key; undefined for the secret methods. */
export function clientAssertionAlgorithm(settings: OpenIdConnectSettings): string | undefined {
  return settings.ClientAuthentication === 'private_key_jwt' ? configuredKey(settings).algorithm : undefined;
}

/**
 * What the provider's discovery document says against this configuration, checked once
 * it is read (at the first sign-in, since nothing contacts the provider at startup): the
 * method among `token_endpoint_auth_methods_supported` (absent: `client_secret_basic`
 * only, RFC 8414 2), the assertion's algorithm among
 * `token_endpoint_auth_signing_alg_values_supported` when listed, and PAR not turned off
 * when the provider requires it (RFC 9126 5). Undefined when all is well; otherwise the
 * refusal every sign-in gets until the configuration changes.
 */
export function providerRefusal(
  metadata: client.ServerMetadata,
  settings: OpenIdConnectSettings,
): GatehouseError | undefined {
  const method = settings.ClientAuthentication;
  const methods = stringsOf(metadata.token_endpoint_auth_methods_supported) ?? ['client_secret_basic'];
  if (!methods.includes(method)) {
    return new GatehouseError(
      'idp.client_authentication_unsupported',
      `The identity provider does not accept ${method} at its token endpoint (it accepts ${methods.join(', ') || 'none'}): set ClientAuthentication to one of those.`,
      { safe: true },
    );
  }
  const algorithm = clientAssertionAlgorithm(settings);
  const algorithms = stringsOf(metadata.token_endpoint_auth_signing_alg_values_supported);
  if (algorithm !== undefined && algorithms !== undefined && !algorithms.includes(algorithm)) {
    return new GatehouseError(
      'idp.client_authentication_unsupported',
      `The identity provider does not accept client assertions signed with ${algorithm} (it accepts ${algorithms.join(', ') || 'none'}): configure a ClientKey of another type.`,
      { safe: true },
    );
  }
  if (metadata.require_pushed_authorization_requests === true && !settings.UsePushedAuthorization) {
    return new GatehouseError(
      'idp.pushed_authorization_required',
      'The identity provider requires pushed authorization requests: UsePushedAuthorization must not be false.',
      { safe: true },
    );
  }
  return undefined;
}

async function privateKeyJwt(settings: OpenIdConnectSettings): Promise<client.ClientAuth> {
  const key = configuredKey(settings);
  const signingKey = await webcrypto.subtle.importKey(
    'pkcs8',
    key.privateKey.export({ type: 'pkcs8', format: 'der' }),
    key.algorithm === 'RS256'
      ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }
      : { name: 'ECDSA', namedCurve: `P-${key.algorithm === 'ES256' ? 256 : key.algorithm === 'ES384' ? 384 : 521}` },
    false,
    ['sign'],
  );
  const audienceIsTokenEndpoint = settings.ClientAssertionAudience === 'token_endpoint';
  // One openid-client method per call, so that the assertion can name this call's token endpoint.
  return (as, metadata, body, headers) =>
    client.PrivateKeyJwt(
      { key: signingKey, ...(key.kid === undefined ? {} : { kid: key.kid }) },
      {
        [client.modifyAssertion]: (header, payload) => {
          if (key.thumbprints) Object.assign(header, key.thumbprints);
          if (audienceIsTokenEndpoint && as.token_endpoint !== undefined) payload.aud = as.token_endpoint;
        },
      },
    )(as, metadata, body, headers);
}

/** The key the startup rules accepted (client-authentication-rules.ts). */
function configuredKey(settings: OpenIdConnectSettings): ClientKey {
  const key = readClientKey(settings.ClientKey, settings.ClientCertificate);
  if (isClientKeyProblem(key))
    throw new GatehouseError('config.invalid', `The OpenIdConnect ${key.setting} ${key.reason}.`);
  return key;
}

function stringsOf(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}
