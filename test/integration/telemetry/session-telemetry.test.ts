import { expect } from 'chai';
import { adminClaims, plainClaims, signIn } from '../../support/sign-in.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';
import { telemetryReaders, total } from '../../support/telemetry-readers.js';

/** The counters that move without a provider: sign-outs, authorization decisions, the sign-in rate limit. */
describe('Telemetry: sign-outs, authorization and the rate limit', function () {
  this.timeout(20_000);
  let running: RunningGatehouse;
  let readers: ReturnType<typeof telemetryReaders>;

  beforeEach(async () => {
    readers = telemetryReaders();
    running = await startGatehouse(
      {
        ProjectTemplate__Telemetry__Enabled: 'true',
        ProjectTemplate__Session__PendingSignInsPerClient: '1',
        ProjectTemplate__Authentication__Providers__Social3__Enabled: 'true',
        ProjectTemplate__Authentication__Providers__Social3__ClientId: 'telemetry-test',
        ProjectTemplate__Authentication__Providers__Social3__ClientSecret: 'telemetry-test-secret',
      },
      { telemetry: readers.parts },
    );
  });
  afterEach(() => running.close());

  it('counts a sign-out by its cause and actor, once per session ended', async () => {
    const { cookie, csrf } = await signIn(running.gatehouse, adminClaims);
    const logout = await fetch(`${running.url}/Account/Logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `_csrf=${csrf}`,
    });
    expect(logout.status).to.equal(302);
    // The same request again: the session has ended already, nothing more ends.
    await fetch(`${running.url}/Account/Logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `_csrf=${csrf}`,
    });
    const points = await readers.points();
    expect(total(points, 'gatehouse.authentication.sign_outs', { cause: 'signout', by: 'user' })).to.equal(1);
    expect(total(points, 'gatehouse.authentication.sign_outs')).to.equal(1);
  });

  it('counts allowed, denied and challenged decisions with the policy of the endpoint', async () => {
    const user = await signIn(running.gatehouse, plainClaims);
    const json = { accept: 'application/json' };
    expect((await fetch(`${running.url}/api/app-info`, { headers: { ...json, cookie: user.cookie } })).status).to.equal(
      200,
    );
    expect((await fetch(`${running.url}/Admin`, { headers: { ...json, cookie: user.cookie } })).status).to.equal(403);
    expect((await fetch(`${running.url}/api/app-info`, { headers: json })).status).to.equal(401);
    const points = await readers.points();
    const attempts = points
      .filter((p) => p.metric === 'gatehouse.authorization.attempts')
      .map((p) => `${String(p.attributes.policy)} ${String(p.attributes.result)} ${p.value}`)
      .sort();
    expect(attempts).to.deep.equal([
      'application.Role.Administrator denied 1',
      'fallback allowed 1',
      'fallback challenged 1',
    ]);
  });

  it("reads the memory store's browser sessions as gatehouse.sessions.active when collected", async () => {
    const active = async () =>
      (await readers.points()).filter((p) => p.metric === 'gatehouse.sessions.active').map((p) => p.value);
    expect(await active()).to.deep.equal([0]);
    const first = await signIn(running.gatehouse, plainClaims);
    await signIn(running.gatehouse, adminClaims);
    expect(await active(), 'two sessions; their sign-in records are not sessions').to.deep.equal([2]);
    const logout = await fetch(`${running.url}/Account/Logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: first.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `_csrf=${first.csrf}`,
    });
    expect(logout.status).to.equal(302);
    expect(await active()).to.deep.equal([1]);
  });

  it('counts a challenge refused by the per-client limit, and the refusal', async () => {
    const challenge = () =>
      fetch(`${running.url}/External/Challenge?provider=Social3&returnUrl=%2F`, { redirect: 'manual' });
    expect((await challenge()).status).to.equal(302);
    expect((await challenge()).status).to.equal(429);
    expect((await challenge()).status).to.equal(429);
    const points = await readers.points();
    expect(
      total(points, 'gatehouse.authentication.challenges', { provider: 'Social3', outcome: 'redirected' }),
    ).to.equal(1);
    expect(
      total(points, 'gatehouse.authentication.challenges', {
        provider: 'Social3',
        outcome: 'failure',
        'error.type': 'auth.too_many_sign_ins',
      }),
    ).to.equal(2);
    expect(
      total(points, 'gatehouse.rate_limit.refusals', { limit: 'sign_ins_per_client', provider: 'Social3' }),
    ).to.equal(2);
  });
});

describe('Telemetry: a decision that asks for a stronger sign-in', function () {
  this.timeout(20_000);

  it('counts it as step_up with the policy that asked, not as denied', async () => {
    const readers = telemetryReaders();
    const running = await startGatehouse(
      {
        ProjectTemplate__Telemetry__Enabled: 'true',
        'ProjectTemplate__Authorization__StepUp__application.Role.Administrator__AuthenticationMethods__0': 'mfa',
      },
      { telemetry: readers.parts },
    );
    try {
      const admin = await signIn(running.gatehouse, adminClaims);
      const answer = await fetch(`${running.url}/Admin`, {
        headers: { accept: 'application/json', cookie: admin.cookie },
      });
      expect(answer.status).to.equal(401);
      expect(answer.headers.get('www-authenticate')).to.include('insufficient_user_authentication');
      const attempts = (await readers.points())
        .filter((p) => p.metric === 'gatehouse.authorization.attempts' && p.attributes.result !== 'allowed')
        .map((p) => `${String(p.attributes.policy)} ${String(p.attributes.result)} ${p.value}`);
      expect(attempts).to.deep.equal(['application.Role.Administrator step_up 1']);
    } finally {
      await running.close();
    }
  });
});
