import type {
  ChallengeStart,
  FlowSecrets,
  IdentityProvider,
  IdentityProviderInfo,
  ProviderIdentity,
  SessionTokens,
} from '../../src/application/ports/identity-provider.js';

/** A hand-written identity provider for use-case tests: counts calls, answers as told. */
export class FakeIdentityProvider implements IdentityProvider {
  readonly info: IdentityProviderInfo = {
    key: 'OpenIdConnect',
    scheme: 'OpenIdConnect',
    displayName: 'Fake',
    callbackPath: '/signin-oidc',
  };
  readonly calls = { beginChallenge: 0, completeCallback: 0, refreshTokens: 0 };
  private counter = 0;
  identity: ProviderIdentity = {
    claims: { sub: 'u1', name: 'Una', roles: ['Administrator'] },
    tokens: { accessToken: 'at', refreshToken: 'rt', idToken: 'it' },
  };
  refreshDelayMs = 0;
  /** Answers a refresh as a provider that no longer accepts the refresh token. */
  refuseRefresh = false;

  async beginChallenge(): Promise<ChallengeStart> {
    this.calls.beginChallenge += 1;
    const state = `state-${++this.counter}`;
    return {
      redirectUrl: `https://idp.example/authorize?state=${state}`,
      state,
      secrets: { state, nonce: 'n', codeVerifier: 'v' },
    };
  }

  async completeCallback(_callbackUrl: URL, _secrets: FlowSecrets): Promise<ProviderIdentity> {
    this.calls.completeCallback += 1;
    return this.identity;
  }

  async refreshTokens(tokens: SessionTokens): Promise<SessionTokens> {
    this.calls.refreshTokens += 1;
    await new Promise((resolve) => setTimeout(resolve, this.refreshDelayMs));
    if (this.refuseRefresh) throw Object.assign(new Error('refresh token refused'), { code: 'invalid_grant' });
    return { ...tokens, accessToken: `${tokens.accessToken}-refreshed`, expiresAt: Date.now() + 3_600_000 };
  }
}
