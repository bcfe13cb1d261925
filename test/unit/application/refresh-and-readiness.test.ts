import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import 'reflect-metadata';
import { expect } from 'chai';
import { IdentityProviders } from '../../../src/application/identity-providers.js';
import type { HealthCheck } from '../../../src/application/ports/health-check.js';
import type { Logger } from '../../../src/application/ports/logger.js';
import { CheckReadiness } from '../../../src/application/use-cases/check-readiness.js';
import { DrainState } from '../../../src/application/drain-state.js';
import type { ProviderSession } from '../../../src/application/ports/identity-provider.js';
import {
  RefreshProviderSession,
  type RefreshOutcome,
} from '../../../src/application/use-cases/refresh-provider-session.js';
import { MemorySessionStore } from '../../../src/adapters/session/memory-session-store.js';
import { defaultSettings } from '../../../src/domain/settings/default-settings.js';
import { FakeIdentityProvider } from '../../support/fake-identity-provider.js';
import { FixedClock } from '../../support/fixed-clock.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

describe('RefreshProviderSession', () => {
  const tokens: ProviderSession = { record: { accessToken: 'a', refreshToken: 'r' }, refreshAt: 0 };
  const settings = (httpTimeoutSeconds = 10) => {
    const defaults = defaultSettings(builtInProviders);
    return { ...defaults, Authentication: { ...defaults.Authentication, HttpTimeoutSeconds: httpTimeoutSeconds } };
  };
  /** One process's RefreshProviderSession; processes made from one store share it, as instances share Redis. */
  const process = (
    provider: FakeIdentityProvider,
    store: MemorySessionStore,
    httpTimeoutSeconds?: number,
    clock = new FixedClock(),
  ) =>
    new RefreshProviderSession(new IdentityProviders([provider]), clock, silent, store, settings(httpTimeoutSeconds));
  /** The kept provider session, as the authentication middleware keeps it from each outcome. */
  class Saved {
    current: ProviderSession | undefined = tokens;
    readonly reload = async () => this.current;
    keep(result: RefreshOutcome): RefreshOutcome {
      if (result.outcome === 'refreshed') this.current = result.session;
      if (result.outcome === 'refused') this.current = undefined;
      return result;
    }
  }
  let store: MemorySessionStore;
  beforeEach(() => (store = new MemorySessionStore({ maxEntries: 100, clock: new FixedClock() })));

  it('finds the provider by its key, not its Scheme: a renamed scheme still refreshes; a provider not registered cannot, and its tokens are dropped', async () => {
    const provider = new FakeIdentityProvider();
    Object.assign(provider, { info: { ...provider.info, scheme: 'CorporateLogin' } });
    const renamed = await process(provider, store).execute('s1', 'OpenIdConnect', async () => tokens);
    expect(renamed.outcome).to.equal('refreshed');
    const disabled = await process(provider, store).execute('s2', 'Social1', async () => tokens);
    expect(disabled).to.deep.equal({ outcome: 'refused' });
    expect(provider.calls.refreshSession).to.equal(1);
  });

  it("refreshes only when the adapter's time to refresh has come", () => {
    const clock = new FixedClock(1_000_000);
    const refresh = new RefreshProviderSession(
      new IdentityProviders([new FakeIdentityProvider()]),
      clock,
      silent,
      store,
      settings(),
    );
    expect(refresh.needsRefresh(1_000_000)).to.equal(true);
    expect(refresh.needsRefresh(1_000_000 + 20_000)).to.equal(true); // inside the 30 s skew
    expect(refresh.needsRefresh(1_000_000 + 3_600_000)).to.equal(false);
    expect(refresh.needsRefresh(undefined)).to.equal(false);
  });

  it('runs one refresh at a time per sign-in within a process, sharing its result', async () => {
    const provider = new FakeIdentityProvider();
    provider.refreshDelayMs = 30;
    const refresh = process(provider, store);
    const saved = new Saved();
    const results = await Promise.all([
      refresh.execute('s1', 'OpenIdConnect', saved.reload),
      refresh.execute('s1', 'OpenIdConnect', saved.reload),
      refresh.execute('s2', 'OpenIdConnect', saved.reload),
    ]);
    expect(provider.calls.refreshSession).to.equal(2);
    expect(results.map((result) => result.outcome === 'refreshed' && result.session.record.accessToken)).to.deep.equal([
      'a-refreshed',
      'a-refreshed',
      'a-refreshed',
    ]);
    expect(results[1]).to.equal(results[0]); // the same refresh, shared
  });

  it('refreshes once across processes: the others wait for the tokens the first one saves', async () => {
    const provider = new FakeIdentityProvider();
    const clock = new FixedClock();
    provider.refreshDelayMs = 30;
    provider.wait = (ms) => clock.sleep(ms);
    const saved = new Saved();
    const one = () => process(provider, store, undefined, clock);
    const [a, b, c] = [one(), one(), one()];
    const results = await Promise.all(
      [a, b, c].map((refresh) =>
        refresh.execute('s1', 'OpenIdConnect', saved.reload).then((result) => saved.keep(result)),
      ),
    );
    expect(provider.calls.refreshSession).to.equal(1);
    expect(results.map((result) => result.outcome === 'refreshed' && result.session.record.accessToken)).to.deep.equal([
      'a-refreshed',
      'a-refreshed',
      'a-refreshed',
    ]);
  });

  it('reads the saved tokens again once it holds the claim, and does not refresh tokens another process already replaced', async () => {
    const provider = new FakeIdentityProvider();
    const saved = new Saved();
    const replaced = {
      record: { ...tokens.record, accessToken: 'replaced-elsewhere' },
      refreshAt: Date.now() + 3_600_000,
    };
    // The first read is what the request loaded; by the time the claim is held, another process saved new ones.
    let reads = 0;
    const load = async () => (reads++ === 0 ? tokens : replaced);
    const result = await process(provider, store).execute('s1', 'OpenIdConnect', load);
    expect(result).to.deep.equal({ outcome: 'refreshed', session: replaced });
    expect(saved.current).to.equal(tokens);
    expect(provider.calls.refreshSession).to.equal(0);
  });

  it('a definite refusal reaches every waiting process, which drops the tokens too', async () => {
    const provider = new FakeIdentityProvider();
    const clock = new FixedClock();
    provider.refreshDelayMs = 30;
    provider.wait = (ms) => clock.sleep(ms);
    provider.refreshFailure = 'refused';
    const saved = new Saved();
    const one = () => process(provider, store, undefined, clock);
    const [a, b] = [one(), one()];
    const results = await Promise.all(
      [a, b].map((refresh) =>
        refresh.execute('s1', 'OpenIdConnect', saved.reload).then((result) => saved.keep(result)),
      ),
    );
    // The process that asked the provider knows why; the one that waited sees the record gone.
    expect(results).to.deep.equal([{ outcome: 'refused', code: 'idp.refresh_refused' }, { outcome: 'refused' }]);
    expect(provider.calls.refreshSession).to.equal(1);
  });

  it('keeps the tokens through an outage: a time-out is no refusal', async () => {
    const provider = new FakeIdentityProvider();
    provider.refreshFailure = 'outage';
    const saved = new Saved();
    const result = saved.keep(await process(provider, store).execute('s1', 'OpenIdConnect', saved.reload));
    expect(result).to.deep.equal({ outcome: 'kept', code: 'idp.timeout' });
    expect(saved.current).to.equal(tokens);
    // The failed attempt released its claim: another process tries again at once.
    provider.refreshFailure = undefined;
    const retried = await process(provider, store, 0.1).execute('s1', 'OpenIdConnect', saved.reload);
    expect(retried.outcome).to.equal('refreshed');
    expect(provider.calls.refreshSession).to.equal(2);
  });

  /** A process that claims the refresh of `tokens`, then never finishes it. */
  /** Another process claims the refresh and never finishes; resolves once its claim is held. */
  function stalledRefresh(): Promise<void> {
    let reads = 0;
    return new Promise((claimed) => {
      const load = () => {
        reads += 1;
        if (reads === 1) return Promise.resolve(tokens);
        claimed(); // it reads the tokens again only once it holds the claim
        return new Promise<undefined>(() => undefined);
      };
      void process(new FakeIdentityProvider(), store).execute('s1', 'OpenIdConnect', load);
    });
  }

  it('leaves the tokens alone when the other process does not finish in time, and never refreshes with them meanwhile', async () => {
    const provider = new FakeIdentityProvider();
    const saved = new Saved();
    await stalledRefresh();
    const clock = new FixedClock();
    const started = clock.now();
    const result = await process(provider, store, 0.1, clock).execute('s1', 'OpenIdConnect', saved.reload);
    expect(result).to.deep.equal({ outcome: 'kept' });
    // It waited 3 x HttpTimeoutSeconds on its clock, in steps of 50 ms, and not a step more.
    expect(clock.now() - started).to.equal(300);
    expect(provider.calls.refreshSession).to.equal(0);
    expect(saved.current).to.equal(tokens);
  });

  it('bounds the wait by elapsed time, however slow each look at the saved tokens is', async () => {
    await stalledRefresh();
    const clock = new FixedClock();
    let looks = 0;
    // Each look at the saved tokens takes 150 ms on the clock.
    const slowLoad = async () => {
      looks += 1;
      clock.advance(150);
      return tokens;
    };
    const started = clock.now();
    const result = await process(new FakeIdentityProvider(), store, 0.1, clock).execute(
      's1',
      'OpenIdConnect',
      slowLoad,
    );
    expect(result).to.deep.equal({ outcome: 'kept' });
    // The first look (150 ms), then two rounds of 50 + 150 ms pass the 300 ms of waiting;
    // counting six steps of 50 ms instead would look seven times and wait 1,350 ms.
    expect(looks).to.equal(3);
    expect(clock.now() - started).to.equal(550);
  });

  it('a claim on one refresh token does not stand in the way of refreshing the next one', async () => {
    const provider = new FakeIdentityProvider();
    const saved = new Saved();
    const first = saved.keep(await process(provider, store).execute('s1', 'OpenIdConnect', saved.reload));
    const next =
      first.outcome === 'refreshed'
        ? { ...first.session, record: { ...first.session.record, refreshToken: 'r2' } }
        : tokens;
    saved.current = next;
    const second = await process(provider, store, 0.1).execute('s1', 'OpenIdConnect', saved.reload);
    expect(second.outcome).to.equal('refreshed');
    expect(provider.calls.refreshSession).to.equal(2);
  });
});

describe('CheckReadiness', () => {
  const check = (name: string, required: boolean, status: 'up' | 'down' | 'throws'): HealthCheck => ({
    name,
    required,
    check: async () => {
      if (status === 'throws') throw new Error('boom');
      return status;
    },
  });

  const cases: Array<[string, HealthCheck[], boolean, boolean]> = [
    ['all up', [check('a', true, 'up')], false, true],
    ['a required check down', [check('a', true, 'down')], false, false],
    ['a required check throwing', [check('a', true, 'throws')], false, false],
    ['only an optional check down', [check('a', true, 'up'), check('b', false, 'down')], false, true],
    ['draining', [check('a', true, 'up')], true, false],
  ];
  for (const [name, checks, draining, ready] of cases) {
    it(`is ${ready ? 'ready' : 'not ready'} with ${name}`, async () => {
      const drain = new DrainState();
      if (draining) drain.startDraining();
      const report = await new CheckReadiness(checks, drain, new IdentityProviders([])).execute();
      expect(report.ready).to.equal(ready);
      expect(Object.keys(report.checks)).to.deep.equal(checks.map((c) => c.name));
    });
  }
});
