import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import { createRemoteJWKSet, errors, type JWTVerifyGetKey } from 'jose';
import type { Configuration } from 'openid-client';
import type { CallbackMessage, ProviderLogout } from '../../application/ports/identity-provider.js';
import { GatehouseError } from '../../domain/errors.js';
import type { AdapterContext } from '../provider-record.js';
import { logoutKey } from './logout-keys.js';
import { KeySetUnavailable, verifyLogoutToken } from './logout-token.js';
import { singleField } from '../single-field.js';

/** A logout token is a signed JWT of a few hundred bytes to a few kilobytes: a POST up to 16 KiB is read. */
export const LOGOUT_TOKEN_LIMIT_BYTES = 16 * 1024;

export interface BackchannelLogoutOptions {
  /** The provider's discovered configuration (issuer, jwks_uri). */
  configuration: () => Promise<Configuration>;
  clientId: string;
  /** The ID token's algorithm, which logout tokens are signed with too. */
  algorithm: string;
  acceptJwtTyp: boolean;
  context: AdapterContext;
}

/**
 * OpenID Connect Back-Channel Logout 1.0 as a relying party: the logout tokens the
 * provider POSTs, checked whole (logout-token.ts) and then used once across every
 * instance: the token's `jti` is recorded in the shared replay records with an atomic
 * set-if-absent, as SAML assertion IDs are, for as long as the token stays acceptable.
 * They name sign-ins by their logout keys (logout-keys.ts).
 */
export class BackchannelLogout {
  readonly #options: BackchannelLogoutOptions;
  #keys: { uri: string; get: JWTVerifyGetKey } | undefined;

  constructor(options: BackchannelLogoutOptions) {
    this.#options = options;
  }

  async read(message: CallbackMessage): Promise<ProviderLogout> {
    const token = message.method === 'POST' ? singleField(message.form, 'logout_token') : undefined;
    if (token === undefined || token === '') {
      throw new GatehouseError('idp.logout_token_missing', 'A logout_token form field is required.', { safe: true });
    }
    const configuration = await this.#options.configuration();
    const { issuer, jwks_uri: jwksUri } = configuration.serverMetadata();
    if (jwksUri === undefined) {
      throw new GatehouseError('idp.metadata_invalid', 'The identity provider publishes no keys (jwks_uri).');
    }
    const { context } = this.#options;
    const now = context.clock.now();
    const verified = await verifyLogoutToken(token, this.#keySet(jwksUri), {
      issuer,
      clientId: this.#options.clientId,
      algorithm: this.#options.algorithm,
      acceptJwtTyp: this.#options.acceptJwtTyp,
      now,
    });
    // 2.6 step 10 (optional, taken): a jti used once only, across every instance.
    if (!(await context.replayRecords.create(replayKey(issuer, verified.jti), {}, verified.acceptableUntil - now))) {
      throw new GatehouseError('idp.logout_token_replayed', 'This logout token was used before.', { safe: true });
    }
    // 2.7: with a sid, exactly the sessions of that provider session (marked ended, for a
    // late sign-in of it); without, every session of the user at the provider.
    if (verified.sid !== undefined) {
      const session = logoutKey(issuer, 'sid', verified.sid);
      return { kind: 'request', logoutKeys: [session], endedSessions: [session], replyUrl: undefined };
    }
    return {
      kind: 'request',
      logoutKeys: [logoutKey(issuer, 'sub', verified.sub ?? '')],
      endedSessions: [],
      replyUrl: undefined,
    };
  }

  /** The provider's keys, fetched when first needed and cached by jose (a key it does not know is fetched again). */
  #keySet(jwksUri: string): JWTVerifyGetKey {
    if (this.#keys?.uri !== jwksUri) {
      const { timeoutMs } = this.#options.context;
      // jose aborts a fetch of the keys after timeoutDuration (HttpTimeoutSeconds, as every outbound call).
      const remote = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: timeoutMs });
      const get: JWTVerifyGetKey = async (header, token) => {
        try {
          return await remote(header, token);
        } catch (error) {
          // A key the set does not hold is the token's fault; anything else is an outage.
          if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
            throw error;
          this.#options.context.logger.warn(
            { provider: this.#options.context.info.key, library: libraryName(error) },
            'OpenID Connect keys could not be fetched',
          );
          throw new KeySetUnavailable(error instanceof errors.JWKSTimeout ? 'idp.timeout' : 'idp.unreachable');
        }
      };
      this.#keys = { uri: jwksUri, get };
    }
    return this.#keys.get;
  }
}

function replayKey(issuer: string, jti: string): string {
  return `oidc-logout-token:${encodeHexLowerCase(sha256(new TextEncoder().encode(`${issuer}\n${jti}`)))}`;
}

function libraryName(error: unknown): string {
  if (error instanceof Error) return 'code' in error && typeof error.code === 'string' ? error.code : error.name;
  return 'unknown';
}
