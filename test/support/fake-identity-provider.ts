import type {
  CallbackMessage,
  ChallengeOptions,
  ChallengeStart,
  FlowSecrets,
  IdentityProvider,
  IdentityProviderInfo,
  ProviderIdentity,
  ProviderSession,
  ProviderSessionRecord,
} from '../../src/application/ports/identity-provider.js';
import { GatehouseError } from '../../src/domain/errors.js';

/**
 * A hand-written identity provider for use-case tests: counts calls, answers as told. Its
 * messages correlate by a `state` query parameter and report `error`, as OAuth's do.
 */
export class FakeIdentityProvider implements IdentityProvider {
  readonly info: IdentityProviderInfo = {
    key: 'OpenIdConnect',
    kind: 'OpenIdConnect',
    scheme: 'OpenIdConnect',
    displayName: 'Fake',
    callbackPath: '/signin-oidc',
  };
  readonly callback = { messageMethods: ['GET'] as const, maxBodyBytes: 1024 };
  readonly calls = { beginChallenge: 0, completeCallback: 0, refreshSession: 0 };
  /** The secrets handed to the last completed callback. */
  lastSecrets: FlowSecrets | undefined;
  private counter = 0;
  identity: ProviderIdentity = {
    claims: { sub: 'u1', name: 'Una', roles: ['Administrator'] },
    session: { record: { accessToken: 'at', refreshToken: 'rt', idToken: 'it' } },
  };
  refreshDelayMs = 0;
  /** How a refresh takes its time: on the test's clock when it shares one with the code under test. */
  wait: (ms: number) => Promise<unknown> = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  /** How the next refreshes fail: a definite refusal, or an outage. */
  refreshFailure: 'refused' | 'outage' | undefined;

  /** Whether it can be asked for a step-up; the options of the last challenge. */
  supportsStepUp = true;
  lastChallenge: ChallengeOptions | undefined;

  async beginChallenge(options?: ChallengeOptions): Promise<ChallengeStart> {
    this.calls.beginChallenge += 1;
    this.lastChallenge = options;
    const state = `state-${++this.counter}`;
    return { redirectUrl: `https://idp.example/authorize?state=${state}`, correlation: state, secrets: { nonce: 'n' } };
  }

  correlate(message: CallbackMessage): string | undefined {
    return message.url.searchParams.get('state') ?? undefined;
  }

  reportedError(message: CallbackMessage): GatehouseError | undefined {
    const error = message.url.searchParams.get('error');
    return error === null ? undefined : new GatehouseError('idp.provider_error', `refused (${error})`, { safe: true });
  }

  async completeCallback(_message: CallbackMessage, secrets: FlowSecrets): Promise<ProviderIdentity> {
    this.calls.completeCallback += 1;
    this.lastSecrets = secrets;
    return this.identity;
  }

  async refreshSession(record: ProviderSessionRecord): Promise<ProviderSession> {
    this.calls.refreshSession += 1;
    await this.wait(this.refreshDelayMs);
    if (this.refreshFailure === 'refused') throw new GatehouseError('idp.refresh_refused', 'refresh token refused');
    if (this.refreshFailure === 'outage') throw new GatehouseError('idp.timeout', 'the provider did not answer');
    return {
      record: { ...record, accessToken: `${String(record.accessToken)}-refreshed` },
      refreshAt: Date.now() + 3_600_000,
    };
  }
}
