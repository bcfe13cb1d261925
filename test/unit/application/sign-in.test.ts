import { NoTelemetry } from '../../../src/application/ports/telemetry.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import 'reflect-metadata';
import { expect } from 'chai';
import { IdentityProviders } from '../../../src/application/identity-providers.js';
import type { CallbackMessage } from '../../../src/application/ports/identity-provider.js';
import { FLOW_LIFETIME_MS, FlowRecords } from '../../../src/application/sign-in/flow-records.js';
import { ProviderSessions } from '../../../src/application/sign-in/provider-sessions.js';
import { SignInRecords } from '../../../src/application/sign-in/sign-in-records.js';
import { BeginSignIn } from '../../../src/application/use-cases/begin-sign-in.js';
import { CompleteSignIn } from '../../../src/application/use-cases/complete-sign-in.js';
import { PortalTestResults } from '../../../src/application/portal/test-results.js';
import { MemorySessionStore } from '../../../src/adapters/session/memory-session-store.js';
import { defaultSettings } from '../../../src/domain/settings/default-settings.js';
import type { ProjectTemplateSettings } from '../../../src/domain/settings/settings.js';
import { FakeBrowserSession } from '../../support/fake-browser-session.js';
import { FakeIdentityProvider } from '../../support/fake-identity-provider.js';
import { FixedClock } from '../../support/fixed-clock.js';
import { RecordingAuditLog } from '../../support/recording-audit-log.js';
import { EndedProviderSessions } from '../../../src/application/sign-in/ended-provider-sessions.js';
import { SessionIndex } from '../../../src/application/sign-in/session-index.js';
import { KeyRecordingStore } from '../../support/key-recording-store.js';
import { StepUps } from '../../../src/application/sign-in/step-ups.js';
import { builtInPolicies } from '../../../src/domain/authorization/policies.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

describe('BeginSignIn and CompleteSignIn', () => {
  let clock: FixedClock;
  let store: KeyRecordingStore;
  let pending: KeyRecordingStore;
  let provider: FakeIdentityProvider;
  let begin: BeginSignIn;
  let complete: CompleteSignIn;
  let signIns: SignInRecords;
  let settings: ProjectTemplateSettings;
  let audit: RecordingAuditLog;

  function compose() {
    const flows = new FlowRecords(pending);
    signIns = new SignInRecords(store, settings);
    const stepUps = new StepUps(signIns, builtInPolicies(settings.Authorization), clock, store);
    begin = new BeginSignIn(
      new IdentityProviders([provider]),
      pending,
      flows,
      clock,
      settings,
      audit,
      new NoTelemetry(),
      stepUps,
    );
    complete = new CompleteSignIn(
      new IdentityProviders([provider]),
      flows,
      signIns,
      new ProviderSessions(store, settings),
      clock,
      quiet,
      settings,
      builtInProviders,
      audit,
      new SessionIndex(store),
      new EndedProviderSessions(store),
      new NoTelemetry(),
      stepUps,
      new PortalTestResults(pending, clock),
    );
  }

  beforeEach(() => {
    clock = new FixedClock(1_000_000);
    store = new KeyRecordingStore(new MemorySessionStore({ maxEntries: 100, clock }));
    pending = new KeyRecordingStore(new MemorySessionStore({ maxEntries: 100, clock }));
    provider = new FakeIdentityProvider();
    settings = defaultSettings(builtInProviders);
    audit = new RecordingAuditLog();
    compose();
  });

  const start = (returnUrl: string | undefined = '/back', binding = 'browser-1', client = '192.0.2.1') =>
    begin.execute({ scheme: 'OpenIdConnect', returnUrl, binding, client });
  const message = (state: string, extra = ''): CallbackMessage => ({
    method: 'GET',
    url: new URL(`http://app.example/signin-oidc?code=c&state=${state}${extra}`),
    form: new URLSearchParams(),
  });
  const finish = (
    state: string,
    overrides: { binding?: string | undefined; extra?: string; provider?: 'OpenIdConnect' | 'Social1' } = {},
    session = new FakeBrowserSession(),
  ) =>
    complete.execute({
      provider: overrides.provider ?? 'OpenIdConnect',
      message: message(state, overrides.extra),
      binding: 'binding' in overrides ? overrides.binding : 'browser-1',
      session,
    });
  const failure = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      return (error as { code?: string }).code ?? String(error);
    }
    return 'no error';
  };

  it('refuses a missing or unknown provider before any redirect', async () => {
    for (const scheme of [undefined, 'Nope', 'openidconnect']) {
      const attempt = begin.execute({ scheme, returnUrl: '/', binding: 'b', client: 'c' });
      expect(await failure(attempt), String(scheme)).to.equal('auth.unknown_provider');
    }
    expect(provider.calls.beginChallenge).to.equal(0);
  });

  it('stores the flow, and nothing else, in the pending-sign-in store', async () => {
    await start();
    expect(await store.held(), 'nothing in the signed-in store').to.deep.equal([]);
    const held = (await pending.held()).map((key) => key.slice(0, key.indexOf(':')));
    expect(held, 'the client count and the flow').to.deep.equal(['challenges', 'flow']);
  });

  it('limits the sign-ins one client may start per flow lifetime, saying when to try again', async () => {
    settings.Session.PendingSignInsPerClient = 3;
    compose();
    for (let i = 0; i < 3; i++) await start();
    const refused = await begin
      .execute({ scheme: 'OpenIdConnect', returnUrl: '/', binding: 'b', client: '192.0.2.1' })
      .then(
        () => undefined,
        (error: { code: string; retryAfterMs: number }) => error,
      );
    expect(refused?.code).to.equal('auth.too_many_sign_ins');
    expect(refused?.retryAfterMs).to.equal(FLOW_LIFETIME_MS);
    await start().catch(() => undefined); // refused again: the same flood, no second event
    expect(audit.ofType('signin.rate_limited')).to.deep.equal([
      { type: 'signin.rate_limited', request: undefined, provider: 'OpenIdConnect', code: 'auth.too_many_sign_ins' },
    ]);
    expect(provider.calls.beginChallenge, 'the provider is not asked').to.equal(3);
    expect((await start('/', 'b', '192.0.2.2')).redirectUrl, 'another client').to.contain('state-4');
    clock.advance(FLOW_LIFETIME_MS);
    expect((await start()).redirectUrl, 'a new window').to.contain('state-5');
  });

  it('completes a started flow once: normalized claims in a new sign-in record, the session rotated, the validated return URL', async () => {
    await start('//evil.example');
    const session = new FakeBrowserSession();
    const result = await finish('state-1', {}, session);
    expect(result.returnUrl).to.equal('/');
    expect(session.rotations).to.equal(1);
    const signIn = await signIns.read(session.fields.signIn);
    expect(signIn?.principal.claims).to.deep.include({
      type: 'application:role',
      value: 'Administrator',
      issuer: 'OpenIdConnect',
    });
    expect(session.fields).to.include({ createdAt: 1_000_000, lastSeenAt: 1_000_000, providerSession: true });
    expect((await store.get(`provider-session:${session.fields.signIn}`))?.record).to.include({ accessToken: 'at' });
    expect(provider.lastSecrets).to.deep.equal({ nonce: 'n' });
    expect(session.fields.publicId).to.match(/^[A-Za-z0-9_-]{16}$/);
    expect(audit.events).to.deep.equal([
      {
        type: 'signin.succeeded',
        request: undefined,
        provider: 'OpenIdConnect',
        subject: 'u1',
        session: session.fields.publicId,
      },
    ]);
    expect(await failure(finish('state-1'))).to.equal('idp.flow_missing'); // used up
    expect(audit.ofType('signin.failed')).to.deep.equal([
      { type: 'signin.failed', request: undefined, provider: 'OpenIdConnect', code: 'idp.flow_missing' },
    ]);
  });

  it('keeps the return URL it was given when it is local, and drops one past 2 KiB', async () => {
    await start('/reports?year=2026');
    expect((await finish('state-1')).returnUrl).to.equal('/reports?year=2026');
    await start(`/${'a'.repeat(2048)}`);
    expect((await finish('state-2')).returnUrl).to.equal('/');
  });

  const refusals: Array<[string, () => Promise<unknown>, string]> = [
    ['no flow-binding cookie in this browser', () => finish('state-1', { binding: undefined }), 'idp.flow_missing'],
    ['a state nobody started', () => finish('forged'), 'idp.flow_missing'],
    ['a flow bound to another browser', () => finish('state-1', { binding: 'browser-2' }), 'idp.state_mismatch'],
    ['an answer at another provider', () => finish('state-1', { provider: 'Social1' }), 'idp.flow_wrong_provider'],
    ['an error from the provider', () => finish('state-1', { extra: '&error=access_denied' }), 'idp.provider_error'],
    [
      'a flow older than 15 minutes',
      () => {
        clock.advance(FLOW_LIFETIME_MS + 1);
        return finish('state-1');
      },
      'idp.flow_expired',
    ],
  ];
  for (const [name, act, code] of refusals) {
    it(`refuses ${name} (${code}) without the provider processing anything`, async () => {
      await start();
      expect(await failure(act())).to.equal(code);
      expect(provider.calls.completeCallback).to.equal(0);
      expect(await store.held(), 'no sign-in record').to.deep.equal([]);
    });
  }

  it('does not use up a flow when another browser delivers its answer', async () => {
    await start();
    expect(await failure(finish('state-1', { binding: 'browser-2' }))).to.equal('idp.state_mismatch');
    expect((await finish('state-1')).returnUrl).to.equal('/back');
  });

  it('replaces the earlier sign-in of the browser, tokens included', async () => {
    await start();
    const session = new FakeBrowserSession();
    await finish('state-1', {}, session);
    const earlier = session.fields.signIn;
    await start();
    await finish('state-2', {}, session);
    expect(session.fields.signIn).to.not.equal(earlier);
    expect(await store.get(`signin:${earlier}`)).to.equal(undefined);
    expect(await store.get(`provider-session:${earlier}`)).to.equal(undefined);
  });

  it('leaves nothing behind when the session cannot be rotated: no sign-in, no tokens, the session untouched', async () => {
    await start();
    const session = new FakeBrowserSession({ createdAt: 5 });
    session.failRotation = true;
    expect(await failure(finish('state-1', {}, session))).to.equal('Error: the store did not answer');
    expect(session.fields).to.deep.equal({ createdAt: 5 });
    expect(await store.held(), 'nothing in the signed-in store').to.deep.equal([]);
  });

  it('keeps no tokens when the adapter returns none', async () => {
    provider.identity = { claims: { sub: 'u1' } };
    await start();
    const session = new FakeBrowserSession();
    await finish('state-1', {}, session);
    expect(session.fields.providerSession).to.equal(undefined);
    expect(await store.get(`provider-session:${session.fields.signIn}`)).to.equal(undefined);
  });

  it('applies the configured claim mappings and RemoveOriginalClaims', async () => {
    settings.Authentication.ClaimsTransformation = {
      RemoveOriginalClaims: true,
      Mappings: { OpenIdConnect: { department: 'application:group' } },
    };
    compose();
    provider.identity = { claims: { sub: 'u1', department: 'finance', nonce: 'n' } };
    await start();
    const session = new FakeBrowserSession();
    await finish('state-1', {}, session);
    const signIn = await signIns.read(session.fields.signIn);
    expect(signIn?.principal.claims.map((c) => [c.type, c.value])).to.have.deep.members([
      ['application:subject', 'u1'],
      ['application:group', 'finance'],
    ]);
  });
});
