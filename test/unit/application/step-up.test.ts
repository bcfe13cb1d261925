import { NoTelemetry } from '../../../src/application/ports/telemetry.js';
import 'reflect-metadata';
import { expect } from 'chai';
import { IdentityProviders } from '../../../src/application/identity-providers.js';
import type { CallbackMessage } from '../../../src/application/ports/identity-provider.js';
import { FlowRecords } from '../../../src/application/sign-in/flow-records.js';
import { ProviderSessions } from '../../../src/application/sign-in/provider-sessions.js';
import { SignInRecords } from '../../../src/application/sign-in/sign-in-records.js';
import { EndedProviderSessions } from '../../../src/application/sign-in/ended-provider-sessions.js';
import { SessionIndex } from '../../../src/application/sign-in/session-index.js';
import { STEP_UP_CLOCK_SKEW_MS, STEP_UP_REPEAT_WINDOW_MS, StepUps } from '../../../src/application/sign-in/step-ups.js';
import { BeginSignIn } from '../../../src/application/use-cases/begin-sign-in.js';
import { CompleteSignIn } from '../../../src/application/use-cases/complete-sign-in.js';
import { PortalTestResults } from '../../../src/application/portal/test-results.js';
import { MemorySessionStore } from '../../../src/adapters/session/memory-session-store.js';
import { provenAuthentication } from '../../../src/domain/authorization/authentication-need.js';
import {
  PolicyRegistry,
  definePolicy,
  requireAuthenticationContext,
  requireAuthenticationMethod,
  requireRecentAuthentication,
} from '../../../src/domain/authorization/policies.js';
import { defaultSettings } from '../../../src/domain/settings/default-settings.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { FakeBrowserSession } from '../../support/fake-browser-session.js';
import { FakeIdentityProvider } from '../../support/fake-identity-provider.js';
import { FixedClock } from '../../support/fixed-clock.js';
import { RecordingAuditLog } from '../../support/recording-audit-log.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const T0 = 1_800_000_000_000;
const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * The step-up bookkeeping of BeginSignIn and CompleteSignIn, with a fake provider that
 * answers what each test tells it to (the real providers: test/integration/step-up/).
 */
describe('step-up (BeginSignIn and CompleteSignIn)', () => {
  let clock: FixedClock;
  let provider: FakeIdentityProvider;
  let begin: BeginSignIn;
  let complete: CompleteSignIn;
  let signIns: SignInRecords;
  let audit: RecordingAuditLog;
  let session: FakeBrowserSession;

  const policies = new PolicyRegistry()
    .add(definePolicy('recent', requireRecentAuthentication(300)))
    .add(definePolicy('mfa', requireAuthenticationMethod('mfa')))
    .add(definePolicy('gold', requireAuthenticationContext('gold')))
    .add(definePolicy('plain'));

  beforeEach(async () => {
    clock = new FixedClock(T0);
    const store = new MemorySessionStore({ maxEntries: 100, clock });
    const pending = new MemorySessionStore({ maxEntries: 100, clock });
    provider = new FakeIdentityProvider();
    const settings = defaultSettings(builtInProviders);
    audit = new RecordingAuditLog();
    const flows = new FlowRecords(pending);
    signIns = new SignInRecords(store, settings);
    const stepUps = new StepUps(signIns, policies, clock, new MemorySessionStore({ maxEntries: 100, clock }));
    const providers = new IdentityProviders([provider]);
    begin = new BeginSignIn(providers, pending, flows, clock, settings, audit, new NoTelemetry(), stepUps);
    complete = new CompleteSignIn(
      providers,
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
    // Signed in an hour ago with a password.
    provider.identity = {
      claims: { sub: 'u1', name: 'Una' },
      authentication: { time: seconds(T0) - 3600, methods: ['pwd'], contextClass: 'silver' },
    };
    session = new FakeBrowserSession();
    await begin.execute({ scheme: 'OpenIdConnect', returnUrl: '/', binding: 'b', client: 'c' });
    await finish('state-1');
    audit.events.length = 0;
    clock.advance(3600_000);
  });

  const message = (state: string): CallbackMessage => ({
    method: 'GET',
    url: new URL(`http://app.example/signin-oidc?code=c&state=${state}`),
    form: new URLSearchParams(),
  });
  const finish = (state: string) =>
    complete.execute({ provider: 'OpenIdConnect', message: message(state), binding: 'b', session });
  const stepUp = (policy: string, fields = session.fields) =>
    begin.execute({
      scheme: 'OpenIdConnect',
      returnUrl: '/Admin',
      binding: 'b',
      client: 'c',
      stepUp: policy,
      session: fields,
    });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => 'no error',
      (error: { code?: string }) => error.code ?? String(error),
    );
  const answer = (fields: { sub?: string; time?: number; methods?: string[]; contextClass?: string }) => {
    provider.identity = {
      claims: { sub: fields.sub ?? 'u1', name: 'Una' },
      authentication: {
        time: 'time' in fields ? fields.time : seconds(clock.now()),
        methods: fields.methods ?? ['pwd'],
        contextClass: fields.contextClass,
      },
    };
  };
  const proven = async () => provenAuthentication((await signIns.read(session.fields.signIn))!.principal);

  it('asks the provider for what the policy needs, a fresh sign-in when the age failed', async () => {
    await stepUp('recent');
    expect(provider.lastChallenge).to.deep.equal({ stepUp: { need: { maxAgeSeconds: 300 }, freshSignIn: true } });
    await stepUp('gold,mfa');
    expect(provider.lastChallenge).to.deep.equal({
      stepUp: { need: { contextClasses: ['gold'], methods: ['mfa'] }, freshSignIn: true },
    });
    await stepUp('gold');
    expect(provider.lastChallenge, 'acr_values alone ask for the class').to.deep.equal({
      stepUp: { need: { contextClasses: ['gold'] }, freshSignIn: false },
    });
  });

  it('upgrades the session: a new id, the new proof, the session start kept, audited as a step-up', async () => {
    const before = { ...session.fields };
    await stepUp('mfa');
    clock.advance(20_000);
    answer({ methods: ['pwd', 'otp', 'mfa'], time: seconds(clock.now()) - 5 });
    expect((await finish('state-2')).returnUrl).to.equal('/Admin');
    expect(session.rotations).to.equal(2);
    expect(session.fields.signIn).not.to.equal(before.signIn);
    expect(session.fields.createdAt, 'the absolute lifetime runs from the first sign-in').to.equal(before.createdAt);
    expect(await proven()).to.deep.equal({
      time: seconds(clock.now()) - 5,
      methods: ['pwd', 'otp', 'mfa'],
      contextClass: undefined,
    });
    expect(await signIns.read(before.signIn), 'the earlier sign-in is released').to.equal(undefined);
    expect(audit.ofType('signin.succeeded')).to.have.length(1).and.to.deep.include({
      type: 'signin.succeeded',
      request: undefined,
      provider: 'OpenIdConnect',
      subject: 'u1',
      session: session.fields.publicId,
      cause: 'step_up',
    });
  });

  const refusals: Array<[string, string, () => void, string]> = [
    [
      'another person signs in at the prompt',
      'mfa',
      () => answer({ sub: 'u2', methods: ['mfa'] }),
      'idp.subject_changed',
    ],
    [
      'the provider ignores max_age (an auth_time from before the challenge)',
      'recent',
      () => answer({ time: seconds(clock.now() - STEP_UP_CLOCK_SKEW_MS) - 1 }),
      'idp.step_up_stale',
    ],
    ['the provider says nothing of the time', 'recent', () => answer({ time: undefined }), 'idp.step_up_stale'],
    // A careless provider that leaves auth_time out when only a method or a class was asked:
    // "signed in after the challenge" cannot be shown, whatever amr and acr it sends.
    [
      'the provider sends the method asked but no time',
      'mfa',
      () => answer({ time: undefined, methods: ['pwd', 'otp', 'mfa'] }),
      'idp.step_up_stale',
    ],
    [
      'the provider sends the class asked but no time',
      'gold',
      () => answer({ time: undefined, contextClass: 'gold' }),
      'idp.step_up_stale',
    ],
    ['no second factor', 'mfa', () => answer({ methods: ['pwd'] }), 'idp.step_up_not_met'],
    ['a lower acr', 'gold', () => answer({ contextClass: 'silver' }), 'idp.step_up_not_met'],
  ];
  for (const [label, policy, setUp, code] of refusals) {
    it(`refuses when ${label} (${code}), leaving the session exactly as it was`, async () => {
      const before = structuredClone(session.fields);
      const proofBefore = await proven();
      await stepUp(policy);
      setUp();
      expect(await failure(finish('state-2'))).to.equal(code);
      expect(session.fields).to.deep.equal(before);
      expect(session.rotations).to.equal(1);
      expect(await proven()).to.deep.equal(proofBefore);
      expect(audit.ofType('signin.failed')).to.deep.equal([
        { type: 'signin.failed', request: undefined, provider: 'OpenIdConnect', code },
      ]);
    });
  }

  it('accepts an auth_time within the clock skew before the challenge', async () => {
    await stepUp('recent');
    answer({ time: seconds(clock.now() - STEP_UP_CLOCK_SKEW_MS) + 1 });
    expect((await finish('state-2')).returnUrl).to.equal('/Admin');
  });

  // docs/step-up.md promises 3 minutes of clock difference: pinned here in seconds, not
  // read from the constant, so that widening it is a visible change.
  it('accepts a sign-in 180 s before the challenge (the documented clock difference), refuses one 181 s before', async () => {
    await stepUp('mfa');
    const challengedAt = seconds(clock.now());
    clock.advance(20_000);
    answer({ time: challengedAt - 180, methods: ['mfa'] });
    expect((await finish('state-2')).returnUrl).to.equal('/Admin');

    clock.advance(STEP_UP_REPEAT_WINDOW_MS);
    await stepUp('gold');
    const again = seconds(clock.now());
    clock.advance(20_000);
    answer({ time: again - 181, contextClass: 'gold' });
    expect(await failure(finish('state-3'))).to.equal('idp.step_up_stale');
  });

  it('refuses an answer when the browser has left the sign-in it was to strengthen', async () => {
    await stepUp('mfa');
    session.fields = {};
    answer({ methods: ['mfa'] });
    expect(await failure(finish('state-2'))).to.equal('idp.step_up_session_ended');
  });

  it('refuses to start one that cannot be: unknown policy, nothing to ask, no sign-in, a provider that cannot', async () => {
    expect(await failure(stepUp('nope'))).to.equal('auth.unknown_policy');
    expect(await failure(stepUp('plain'))).to.equal('auth.step_up_unavailable');
    expect(await failure(stepUp('mfa', {}))).to.equal('auth.step_up_unavailable');
    provider.supportsStepUp = false;
    const refused = await stepUp('recent').catch((error: Error) => error);
    expect(refused).to.include({ code: 'auth.step_up_unavailable' });
    expect((refused as Error).message)
      .to.contain('a sign-in within the last 5 minutes')
      .and.contain('Fake cannot be asked');
    expect(provider.calls.beginChallenge, 'the provider was never asked').to.equal(1);
  });

  it('does not send the browser round again for the same policies right after a step-up (no loop)', async () => {
    await stepUp('mfa');
    answer({ methods: ['mfa'] });
    await finish('state-2');
    expect(await failure(stepUp('mfa'))).to.equal('auth.step_up_unavailable');
    expect(await failure(stepUp('gold')), 'another policy may').to.equal('no error');
    clock.advance(STEP_UP_REPEAT_WINDOW_MS);
    expect(await failure(stepUp('mfa')), 'later, again').to.equal('no error');
  });
});
