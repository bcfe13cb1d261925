/**
 * Social1-3 through the running app, each against its vendor-shaped server: the whole
 * sign-in over HTTP for both demo accounts (each vendor's field mapping), and every
 * failure ending on the error page with a stable code, no session and nothing secret in
 * the log.
 */
import { expect } from 'chai';
import type { DemoLogin } from '../../../scripts/demo-users.js';
import { sessionStoreKey } from '../../../src/adapters/koa/session/session-token.js';
import { CookieJar } from '../../support/drive-oidc-login.js';
import { SOCIAL_VENDORS, socialHarness, type SocialHarnessRun } from '../../support/social-harness.js';

const SESSION = /gatehouse\.sid=([^;]+)/;

for (const vendor of SOCIAL_VENDORS) {
  describe(`${vendor.key}: ${vendor.vendor} sign-in through the app (${vendor.vendor}-shaped server)`, function () {
    this.timeout(10_000);
    let run: SocialHarnessRun;

    before(async () => {
      run = await socialHarness(vendor).start();
    });
    after(() => run.close());
    afterEach(() => run.server.reset());

    /** A browser that starts a sign-in: its jar, and where the challenge sends it. */
    async function challenge(returnUrl = '/') {
      const jar = new CookieJar();
      const response = await jar.fetch(
        `${run.app.url}/External/Challenge?provider=${run.scheme}&returnUrl=${encodeURIComponent(returnUrl)}`,
      );
      const location = response.headers.get('location') ?? '';
      expect(response.status, 'challenge').to.equal(302);
      return { jar, location };
    }

    async function signIn(login: DemoLogin, returnUrl = '/') {
      const { jar, location } = await challenge(returnUrl);
      const answer = await run.answerAs(location, login);
      const callback = await jar.fetch(answer.url);
      return { jar, answer, callback };
    }

    /** The application claims on the starter page, as `type=value`. */
    async function applicationClaims(jar: CookieJar): Promise<string[]> {
      const home = await (await jar.fetch(`${run.app.url}/`)).text();
      return [...home.matchAll(/<code>(application:[a-z]+)<\/code><\/td><td>([^<]*)</g)]
        .map(([, type, value]) => `${type}=${value}`)
        .sort();
    }

    /** The error page of a refusal; its text. */
    async function expectRefused(response: Response, status: number, code: string): Promise<string> {
      expect(response.status, code).to.equal(status);
      expect(response.headers.get('cache-control')).to.equal('no-store');
      expect(response.headers.get('location')).to.equal(null);
      const page = await response.text();
      expect(page).to.contain(`<code>${code}</code>`);
      return page;
    }

    it(`is listed on the login page as "${vendor.vendor}" when DisplayName is empty`, async () => {
      const html = await (await fetch(`${run.app.url}/Account/Login?returnUrl=%2Fx`)).text();
      expect(html).to.contain(`href="/External/Challenge?provider=${vendor.key}&amp;returnUrl=%2Fx"`);
      expect(html).to.contain(`Sign in with ${vendor.vendor}</a>`);
    });

    it('sends the browser to the authorization endpoint with state and PKCE (S256), and stores no session yet', async () => {
      const { jar, location } = await challenge();
      const url = new URL(location);
      expect(`${url.origin}${url.pathname}`).to.equal(run.server.endpoints.authorization);
      const p = url.searchParams;
      expect(p.get('client_id')).to.equal('gatehouse-social-test');
      expect(p.get('redirect_uri')).to.equal(`${run.app.url}/signin-${vendor.key.toLowerCase()}`);
      expect(p.get('response_type')).to.equal('code');
      expect(p.get('state')).to.match(/^[\w-]{43}$/);
      expect(p.get('code_challenge')).to.match(/^[\w-]{43}$/);
      expect(p.get('code_challenge_method')).to.equal('S256');
      expect(jar.header(run.app.url)).to.match(/^gatehouse\.sid\.flow=[\w-]{43}$/);
    });

    for (const login of ['admin', 'user'] as const) {
      it(`signs ${login} in: ${vendor.vendor}'s fields become the application claims, a fresh session, back to the return URL`, async () => {
        const { jar, callback } = await signIn(login, '/api/app-info?x=1');
        expect(callback.status).to.equal(302);
        expect(callback.headers.get('location')).to.equal('/api/app-info?x=1');
        expect(callback.headers.get('referrer-policy')).to.equal('no-referrer');
        const token = SESSION.exec(jar.header(run.app.url) ?? '')?.[1];
        expect(token).to.match(/^[\w-]{43}$/);
        const expected = vendor.accounts[login];
        expect(await applicationClaims(jar)).to.deep.equal(
          [
            `application:subject=${expected.subject}`,
            `application:name=${expected.name}`,
            ...(expected.email ? [`application:email=${expected.email}`] : []),
          ].sort(),
        );
        expect(await run.redeemed()).to.equal(1);
        expect((await jar.fetch(`${run.app.url}/api/app-info`)).status).to.equal(200);
      });
    }

    it("drops the vendor's access token after sign-in (SaveTokens is off by default)", async () => {
      const { jar } = await signIn('admin');
      const session = await run.app.gatehouse.stores.sessions.get(
        sessionStoreKey(SESSION.exec(jar.header(run.app.url) ?? '')?.[1] ?? ''),
      );
      expect(session?.signIn).to.be.a('string');
      expect(session?.providerSession).to.equal(undefined);
      expect(await run.app.gatehouse.stores.sessions.get(`provider-session:${String(session?.signIn)}`)).to.equal(
        undefined,
      );
    });

    it('answers a POST at the callback path with 405 (an OAuth redirect answer is a GET), reading no body', async () => {
      const response = await fetch(`${run.app.url}/signin-${vendor.key.toLowerCase()}`, {
        method: 'POST',
        body: new URLSearchParams({ code: 'x', state: 'y' }),
      });
      expect(response.status).to.equal(405);
      expect(response.headers.get('allow')).to.equal('GET');
    });

    describe('refused: the error page with a stable code, no session, and the token endpoint untouched where it must be', () => {
      it('consent cancelled: the sign-in-cancelled page (idp.sign_in_cancelled)', async () => {
        const { jar, location } = await challenge();
        const answer = await run.answerAs(location, 'admin', 'deny');
        expect(new URL(answer.url).searchParams.get('error')).to.equal('access_denied');
        const response = await jar.fetch(answer.url, { headers: { accept: 'text/html' } });
        expect(response.status).to.equal(400);
        const page = await response.text();
        expect(page).to.contain('<h1>Sign-in cancelled</h1>');
        // The vendor's free-text error_description is never echoed.
        expect(page).not.to.match(/AADSTS|customer or authorization service|your application access/);
        expect(SESSION.test(jar.header(run.app.url) ?? '')).to.equal(false);
        expect(await run.redeemed()).to.equal(0);
      });

      it('a tampered state: idp.flow_missing; a missing state: idp.state_mismatch', async () => {
        const { jar, location } = await challenge();
        const answer = new URL((await run.answerAs(location, 'admin')).url);
        answer.searchParams.set('state', 'forged');
        await expectRefused(await jar.fetch(answer.href), 400, 'idp.flow_missing');
        answer.searchParams.delete('state');
        await expectRefused(await jar.fetch(answer.href), 400, 'idp.state_mismatch');
        expect(await run.redeemed()).to.equal(0);
      });

      it('a replayed answer: idp.flow_missing, redeemed once only', async () => {
        const { jar, answer } = await signIn('admin');
        await expectRefused(await jar.fetch(answer.url), 400, 'idp.flow_missing');
        await expectRefused(await new CookieJar().fetch(answer.url), 400, 'idp.flow_missing');
        expect(await run.redeemed()).to.equal(1);
      });

      it('the token endpoint refuses the code: idp.token_exchange_failed (502) naming the OAuth error', async () => {
        run.server.tokenError = 'invalid_grant';
        const logsBefore = run.app.logs.length;
        const { jar, callback } = await signIn('admin');
        await expectRefused(callback, 502, 'idp.token_exchange_failed');
        expect(SESSION.test(jar.header(run.app.url) ?? '')).to.equal(false);
        const line = run.app.logs.slice(logsBefore).find((entry) => entry.includes('OAuth 2.0 step failed'));
        expect(line).to.contain('"stage":"callback","code":"idp.token_exchange_failed"');
        expect(line).to.match(/"oauthError":"(invalid_grant|bad_verification_code)"/);
      });

      it('the token endpoint never answers: idp.timeout (503) within HttpTimeoutSeconds', async () => {
        const started = performance.now();
        const response = await run.provokeTimeout();
        await expectRefused(response, 503, 'idp.timeout');
        expect(performance.now() - started).to.be.lessThan(3_000);
      });

      const userInformationFaults: Array<[string, Parameters<SocialHarnessRun['server']['resourceFaults']['set']>[1]]> =
        [
          ['answers 401 (a bad token)', { status: 401 }],
          ['answers 500', { status: 500 }],
          ['answers malformed JSON', { body: '{"id": ', contentType: 'application/json' }],
          ['answers HTML', { body: '<html>maintenance</html>', contentType: 'text/html' }],
          ['answers a JSON array', { body: '[]', contentType: 'application/json' }],
        ];
      for (const [label, fault] of userInformationFaults) {
        it(`the user information endpoint ${label}: idp.userinfo_failed (502), no session`, async () => {
          run.server.resourceFaults.set('userInformation', fault);
          const { jar, callback } = await signIn('admin');
          await expectRefused(callback, 502, 'idp.userinfo_failed');
          expect(SESSION.test(jar.header(run.app.url) ?? '')).to.equal(false);
          if ('status' in fault) expect(run.app.logs.join('\n')).to.contain(`"status":${fault.status}`);
        });
      }

      it('the user information endpoint never answers: idp.timeout (503)', async () => {
        run.server.hanging.add('userInformation');
        const { callback } = await signIn('admin');
        await expectRefused(callback, 503, 'idp.timeout');
      });

      it('the subject field has the wrong type: idp.userinfo_failed, not a coerced subject', async () => {
        const account = run.server.accounts.admin.userInformation;
        const subjectField = vendor.key === 'Social2' ? 'user_id' : 'id';
        const wrong = vendor.key === 'Social3' ? '1001' : 42; // GitHub documents a number, the others a string
        run.server.accounts.admin.userInformation = { ...(account as object), [subjectField]: wrong };
        const { callback } = await signIn('admin');
        await expectRefused(callback, 502, 'idp.userinfo_failed');
        expect(run.app.logs.join('\n')).to.contain(`\\"${subjectField}\\"`);
      });

      it('never logs the client secret, the code, the state or a token, also when the token response is unusable', async () => {
        const logsBefore = run.app.logs.length;
        const answers = [(await signIn('admin')).answer];
        run.server.tokenError = 'invalid_grant';
        answers.push((await signIn('user')).answer);
        run.server.tokenError = undefined;
        // A token response carrying an access token of a type nobody can use: the library's
        // error holds the whole response body.
        run.server.rewriteTokenReply = (reply) => ({ ...reply, body: reply.body.replace(/bearer/i, 'mac') });
        const unusable = await signIn('admin');
        await expectRefused(unusable.callback, 502, 'idp.token_exchange_failed');
        answers.push(unusable.answer);
        const logs = run.app.logs.slice(logsBefore).join('\n');
        for (const secret of answers.flatMap((answer) => run.secretsOf(answer))) {
          expect(logs, 'a secret in the log').not.to.contain(secret);
        }
        expect(logs).to.match(new RegExp(`/signin-${vendor.key.toLowerCase()}\\?[^"]*code=\\[REDACTED\\]`));
      });
    });
  });
}
