import 'reflect-metadata';
import { expect } from 'chai';
import { FLOW_LIFETIME_MS, flowKey } from '../../../src/application/flow-key.js';
import { BeginSignIn } from '../../../src/application/use-cases/begin-sign-in.js';
import { CompleteSignIn } from '../../../src/application/use-cases/complete-sign-in.js';
import { MemorySessionStore } from '../../../src/adapters/session/memory-session-store.js';
import { defaultSettings } from '../../../src/domain/settings/default-settings.js';
import { FakeIdentityProvider } from '../../support/fake-identity-provider.js';
import { FixedClock } from '../../support/fixed-clock.js';

describe('BeginSignIn and CompleteSignIn', () => {
  let clock: FixedClock;
  let store: MemorySessionStore;
  let provider: FakeIdentityProvider;
  let begin: BeginSignIn;
  let complete: CompleteSignIn;

  beforeEach(() => {
    clock = new FixedClock(1_000_000);
    store = new MemorySessionStore({ maxEntries: 100, clock });
    provider = new FakeIdentityProvider();
    begin = new BeginSignIn([provider], store, clock);
    complete = new CompleteSignIn([provider], store, clock, defaultSettings());
  });

  const start = (pendingFlows: string[] = [], returnUrl = '/back') =>
    begin.execute({ scheme: 'OpenIdConnect', returnUrl, sessionBinding: 'browser-1', pendingFlows });
  const callback = (state: string, extra = '') =>
    new URL(`http://app.example/signin-oidc?code=c&state=${state}${extra}`);
  const finish = (
    state: string,
    pendingFlows: string[],
    overrides: { binding?: string; extra?: string; provider?: 'OpenIdConnect' | 'Social1' } = {},
  ) =>
    complete.execute({
      provider: overrides.provider ?? 'OpenIdConnect',
      callbackUrl: callback(state, overrides.extra),
      sessionBinding: overrides.binding ?? 'browser-1',
      pendingFlows,
    });
  const failure = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      return (error as { code: string }).code;
    }
    return 'no error';
  };

  it('refuses a missing or unknown provider before any redirect', async () => {
    expect(
      await failure(begin.execute({ scheme: undefined, returnUrl: '/', sessionBinding: 'b', pendingFlows: [] })),
    ).to.equal('auth.unknown_provider');
    expect(
      await failure(begin.execute({ scheme: 'Nope', returnUrl: '/', sessionBinding: 'b', pendingFlows: [] })),
    ).to.equal('auth.unknown_provider');
    expect(
      await failure(begin.execute({ scheme: 'openidconnect', returnUrl: '/', sessionBinding: 'b', pendingFlows: [] })),
    ).to.equal('auth.unknown_provider');
    expect(provider.calls.beginChallenge).to.equal(0);
  });

  it('keeps at most three pending flows per browser, dropping the oldest record', async () => {
    let pending: string[] = [];
    for (let i = 0; i < 4; i++) pending = (await start(pending)).pendingFlows;
    expect(pending).to.deep.equal(['state-2', 'state-3', 'state-4'].map(flowKey));
    expect(await store.get(flowKey('state-1'))).to.equal(undefined);
    expect(await store.get(flowKey('state-4'))).to.include({ provider: 'OpenIdConnect', binding: 'browser-1' });
  });

  it('completes a started flow once, with normalized claims and the validated return URL', async () => {
    const { pendingFlows } = await start([], '//evil.example');
    const result = await finish('state-1', pendingFlows);
    expect(result.returnUrl).to.equal('/');
    expect(result.pendingFlows).to.deep.equal([]);
    expect(result.principal.claims).to.deep.include({
      type: 'application:role',
      value: 'Administrator',
      issuer: 'OpenIdConnect',
    });
    expect(result.tokens?.accessToken).to.equal('at');
    expect(await failure(finish('state-1', pendingFlows))).to.equal('idp.flow_expired'); // record taken: gone
  });

  const refusals: Array<[string, (pending: string[]) => Promise<unknown>, string]> = [
    ['no pending flow in this browser', () => finish('state-1', []), 'idp.flow_missing'],
    ['a state this browser did not start', (pending) => finish('forged', pending), 'idp.state_mismatch'],
    [
      'a flow bound to another browser',
      (pending) => finish('state-1', pending, { binding: 'browser-2' }),
      'idp.state_mismatch',
    ],
    [
      'a callback at another provider',
      (pending) => finish('state-1', pending, { provider: 'Social1' }),
      'idp.flow_wrong_provider',
    ],
    [
      'an error from the provider',
      (pending) => finish('state-1', pending, { extra: '&error=access_denied' }),
      'idp.provider_error',
    ],
    [
      'a repeated state',
      (pending) => finish('state-1', pending, { extra: '&state=again' }),
      'request.repeated_parameter',
    ],
    [
      'a flow older than 15 minutes',
      (pending) => {
        clock.advance(FLOW_LIFETIME_MS + 1);
        return finish('state-1', pending);
      },
      'idp.flow_expired',
    ],
  ];
  for (const [name, act, code] of refusals) {
    it(`refuses ${name} (${code}) without calling the provider`, async () => {
      const { pendingFlows } = await start();
      expect(await failure(act(pendingFlows))).to.equal(code);
      expect(provider.calls.completeCallback).to.equal(0);
    });
  }

  it('does not spend a flow when a stranger delivers its callback', async () => {
    const { pendingFlows } = await start();
    expect(await failure(finish('state-1', []))).to.equal('idp.flow_missing');
    expect((await finish('state-1', pendingFlows)).principal.scheme).to.equal('OpenIdConnect');
  });

  it('keeps no tokens when SaveTokens is false', async () => {
    const settings = defaultSettings();
    settings.Authentication.Providers.OpenIdConnect.SaveTokens = false;
    complete = new CompleteSignIn([provider], store, clock, settings);
    const { pendingFlows } = await start();
    expect((await finish('state-1', pendingFlows)).tokens).to.equal(undefined);
  });

  it('applies the configured claim mappings and RemoveOriginalClaims', async () => {
    const settings = defaultSettings();
    settings.Authentication.ClaimsTransformation = {
      RemoveOriginalClaims: true,
      Mappings: { OpenIdConnect: { department: 'application:group' } },
    };
    complete = new CompleteSignIn([provider], store, clock, settings);
    provider.identity = { claims: { sub: 'u1', department: 'finance', nonce: 'n' } };
    const { pendingFlows } = await start();
    const { principal } = await finish('state-1', pendingFlows);
    expect(principal.claims.map((c) => [c.type, c.value])).to.have.deep.members([
      ['application:subject', 'u1'],
      ['application:group', 'finance'],
    ]);
  });
});
