import { expect } from 'chai';
import { CookieJar } from '../../support/drive-oidc-login.js';
import { GITHUB, socialHarness, type SocialHarnessRun } from '../../support/social-harness.js';

const ADMIN = 'application.Role.Administrator';

/**
 * A social provider (OAuth 2.0, GitHub-shaped server) cannot be asked for a recent or
 * stronger sign-in: a page that needs one is refused with the reason, and the provider is
 * never asked (no round trip at all, so no loop). Its sign-in carries the time Gatehouse
 * received it as auth_time, and no amr.
 */
describe('step-up with a social provider (GitHub-shaped server)', function () {
  this.timeout(30_000);
  let run: SocialHarnessRun;

  before(async () => {
    run = await socialHarness(GITHUB).start({
      // The GitHub-shaped admin (id 1001) is the administrator here; /Admin also wants mfa.
      ProjectTemplate__Authorization__RoleClaimType: 'application:subject',
      ProjectTemplate__Authorization__AdministratorRoles__0: '1001',
      [`ProjectTemplate__Authorization__StepUp__${ADMIN}__AuthenticationMethods__0`]: 'mfa',
    });
  });
  after(() => run.close());

  it('refuses the page with what it needs in words, without sending the browser to the provider', async () => {
    const jar = new CookieJar();
    const { url } = run.app;
    const challenge = await jar.fetch(`${url}/External/Challenge?provider=${run.scheme}&returnUrl=%2F`);
    const answer = await run.answerAs(challenge.headers.get('location') ?? '', 'admin');
    expect((await jar.fetch(answer.url)).status).to.equal(302);
    const asked = run.server.requests.authorization;

    const redirected = await jar.fetch(`${url}/Admin`, { headers: { accept: 'text/html' } });
    expect(redirected.status).to.equal(302);
    const refused = await jar.fetch(new URL(redirected.headers.get('location') ?? '', url), {
      headers: { accept: 'text/html' },
    });
    expect(refused.status).to.equal(403);
    expect(refused.headers.get('location')).to.equal(null);
    const page = await refused.text();
    expect(page).to.contain('<code>auth.step_up_unavailable</code>');
    expect(page).to.contain('This page needs a sign-in with multi-factor authentication (mfa)');
    expect(run.server.requests.authorization, 'the provider is not asked again').to.equal(asked);
    expect(run.app.logs.some((line) => line.includes('"signin.rate_limited"'))).to.equal(false);
  });
});
