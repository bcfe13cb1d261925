import { inject, injectable } from 'tsyringe';
import { GatehouseError } from '../../domain/errors.js';
import { validateReturnUrl } from '../../domain/return-url.js';
import { FLOW_LIFETIME_MS, flowKey, MAX_PENDING_FLOWS } from '../flow-key.js';
import { ClockToken, type Clock } from '../ports/clock.js';
import { IdentityProvidersToken, type IdentityProvider } from '../ports/identity-provider.js';
import { SessionStoreToken, type SessionStore } from '../ports/session-store.js';

export interface BeginSignInInput {
  /** The `provider` query parameter: the Scheme of a registered provider. */
  scheme: string | undefined;
  /** The `returnUrl` query parameter, untrusted. */
  returnUrl: string | undefined;
  /** Identifies the browser's session; the callback must come back to the same one. */
  sessionBinding: string;
  /** Keys of the flows this browser already has pending, oldest first. */
  pendingFlows: readonly string[];
}

export interface BeginSignInResult {
  redirectUrl: string;
  pendingFlows: string[];
}

/**
 * Starts an external challenge: the flow record (provider, validated return URL, the
 * adapter's secrets, the browser binding) is stored server-side and single-use, before the
 * browser is sent anywhere. A browser keeps at most a few pending flows; the oldest goes.
 */
@injectable()
export class BeginSignIn {
  constructor(
    @inject(IdentityProvidersToken) private readonly providers: IdentityProvider[],
    @inject(SessionStoreToken) private readonly store: SessionStore,
    @inject(ClockToken) private readonly clock: Clock,
  ) {}

  async execute(input: BeginSignInInput): Promise<BeginSignInResult> {
    if (input.scheme === undefined || input.scheme === '') {
      throw new GatehouseError(
        'auth.unknown_provider',
        'Choose a sign-in provider: the provider parameter is missing.',
        { safe: true },
      );
    }
    const provider = this.providers.find((candidate) => candidate.info.scheme === input.scheme);
    if (!provider)
      throw new GatehouseError('auth.unknown_provider', 'No sign-in provider is registered under that name.', {
        safe: true,
      });

    const start = await provider.beginChallenge();
    const key = flowKey(start.state);
    const record = {
      provider: provider.info.key,
      returnUrl: validateReturnUrl(input.returnUrl),
      createdAt: this.clock.now(),
      binding: input.sessionBinding,
      secrets: { ...start.secrets },
    };
    // The store keeps the record a little longer than it is valid, so that a late callback
    // is told "expired" rather than "unknown".
    await this.store.set(key, record, FLOW_LIFETIME_MS + 5 * 60 * 1000);

    const pendingFlows = [...input.pendingFlows.filter((k) => k !== key), key];
    while (pendingFlows.length > MAX_PENDING_FLOWS) {
      const oldest = pendingFlows.shift();
      if (oldest) await this.store.destroy(oldest);
    }
    return { redirectUrl: start.redirectUrl, pendingFlows };
  }
}
