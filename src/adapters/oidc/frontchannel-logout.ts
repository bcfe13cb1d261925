import type { Configuration } from 'openid-client';
import type { CallbackMessage, ProviderLogout } from '../../application/ports/identity-provider.js';
import { GatehouseError } from '../../domain/errors.js';
import { singleField } from '../single-field.js';
import { logoutKey } from './logout-keys.js';

/**
 * OpenID Connect Front-Channel Logout 1.0 as a relying party: the provider's logout page
 * loads `FrontchannelLogoutPath?iss=<issuer>&sid=<session>` in an iframe, and the sessions
 * signed in under that provider session end (spec section 2). The request proves nothing
 * of where it came from: anyone can send it. What makes it safe is the `sid`, a random
 * value only the provider and our server hold (it travels in the ID token, from the
 * provider's token endpoint to ours): whoever names one knows it. So only a `sid` ends
 * anything; a request without one ends nothing, even when our session cookie came with
 * it, because a cookie is what any page that embeds this address would send (a CSRF
 * logout). Nothing is written for such a request but the ending of what it names, so a
 * flood of made-up values costs an index lookup each.
 */
export class FrontchannelLogout {
  readonly #configuration: () => Promise<Configuration>;
  /** The issuer, once discovered: the discovered configuration is kept for the process's life (a copy of its metadata costs every request). */
  #issuer: string | undefined;

  /** `configuration`: the provider's discovered configuration, whose issuer `iss` must be. */
  constructor(configuration: () => Promise<Configuration>) {
    this.#configuration = configuration;
  }

  async read(message: CallbackMessage): Promise<ProviderLogout> {
    // The shape first: a refusal that needs no discovery costs nothing.
    const query = message.url.searchParams;
    const sid = singleField(query, 'sid', 'query parameter');
    const iss = singleField(query, 'iss', 'query parameter');
    if (sid === undefined || sid === '') {
      throw new GatehouseError(
        'idp.logout_sid_missing',
        'A front-channel logout must name the provider session (sid): nothing was ended.',
        { safe: true },
      );
    }
    const issuer = (this.#issuer ??= (await this.#configuration()).serverMetadata().issuer);
    // Section 2: iss is the provider's Issuer Identifier, compared as a string. Microsoft
    // Entra ID sends `sid` alone; on this provider's own path that can only mean its issuer.
    if (iss !== undefined && iss !== issuer) {
      throw new GatehouseError(
        'idp.logout_issuer_mismatch',
        'The front-channel logout names another identity provider (iss): nothing was ended.',
        { safe: true },
      );
    }
    return {
      kind: 'request',
      logoutKeys: [logoutKey(issuer, 'sid', sid)],
      // A mark is a write: none for a request anyone can make (see above).
      endedSessions: [],
      replyUrl: undefined,
      unauthenticated: true,
    };
  }
}
