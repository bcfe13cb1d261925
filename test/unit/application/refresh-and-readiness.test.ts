import 'reflect-metadata';
import { expect } from 'chai';
import type { HealthCheck } from '../../../src/application/ports/health-check.js';
import type { Logger } from '../../../src/application/ports/logger.js';
import { CheckReadiness } from '../../../src/application/use-cases/check-readiness.js';
import { DrainState } from '../../../src/application/use-cases/drain-state.js';
import { RefreshTokens } from '../../../src/application/use-cases/refresh-tokens.js';
import { FakeIdentityProvider } from '../../support/fake-identity-provider.js';
import { FixedClock } from '../../support/fixed-clock.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

describe('RefreshTokens', () => {
  it('refreshes only expired tokens that carry a refresh token', () => {
    const clock = new FixedClock(1_000_000);
    const refresh = new RefreshTokens([new FakeIdentityProvider()], clock, silent);
    expect(refresh.needsRefresh(1_000_000, true)).to.equal(true);
    expect(refresh.needsRefresh(1_000_000 + 20_000, true)).to.equal(true); // inside the 30 s skew
    expect(refresh.needsRefresh(1_000_000 + 3_600_000, true)).to.equal(false);
    expect(refresh.needsRefresh(0, false)).to.equal(false);
    expect(refresh.needsRefresh(undefined, true)).to.equal(false);
  });

  it('runs one refresh at a time per session, sharing its result', async () => {
    const provider = new FakeIdentityProvider();
    provider.refreshDelayMs = 30;
    const refresh = new RefreshTokens([provider], new FixedClock(), silent);
    const tokens = { accessToken: 'a', refreshToken: 'r', expiresAt: 0 };
    const results = await Promise.all([refresh.execute('s1', 'OpenIdConnect', tokens), refresh.execute('s1', 'OpenIdConnect', tokens), refresh.execute('s2', 'OpenIdConnect', tokens)]);
    expect(provider.calls.refreshTokens).to.equal(2);
    expect(results.map((t) => t?.accessToken)).to.deep.equal(['a-refreshed', 'a-refreshed', 'a-refreshed']);
    await refresh.execute('s1', 'OpenIdConnect', tokens);
    expect(provider.calls.refreshTokens).to.equal(3);
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
      const report = await new CheckReadiness(checks, drain).execute();
      expect(report.ready).to.equal(ready);
      expect(Object.keys(report.checks)).to.deep.equal(checks.map((c) => c.name));
    });
  }
});
