import { expect } from 'chai';
import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import { sessionStoreKey } from '../../src/adapters/koa/session/session-token.js';
import { crossSitePost, deliverAnswer } from '../support/deliver-answer.js';
import type { HarnessRun, ProviderAnswer, ProviderHarness } from '../support/identity-provider-harness.js';
import { TestBrowser } from '../support/oidc-app.js';

/**
 * The behaviour every identity adapter promises through the running app, whatever its
 * protocol: a sign-in that works, and every answer that must not sign anyone in refused
 * with its own code before anything is redeemed at the provider, leaving no session and
 * nothing secret in the log. Each adapter runs it against a real provider of its protocol.
 */
export function identityProviderContract(harness: ProviderHarness): void {
  describe(`${harness.name} (identity-provider contract)`, function () {
    this.timeout(20_000);
    let run: HarnessRun;
    before(async () => {
      run = await harness.start();
    });
    after(async () => {
      await run.close();
    });

    const challenge = async (browser: TestBrowser, returnUrl = '/api/app-info') => {
      const url = `${run.app.url}/External/Challenge?provider=${run.scheme}&returnUrl=${encodeURIComponent(returnUrl)}`;
      const response = await browser.get(url);
      expect(response.status, 'the challenge redirects to the provider').to.equal(302);
      return response.headers.get('location') ?? '';
    };
    const startSignIn = async (browser: TestBrowser, outcome: 'accept' | 'deny' = 'accept') =>
      run.answer(await challenge(browser), outcome);
    const deliver = (browser: TestBrowser, answer: ProviderAnswer) => deliverAnswer(browser, answer, run.app.url);
    const expectRefused = async (response: Response, status: number, code: string) => {
      expect(response.status, code).to.equal(status);
      expect(response.headers.get('location')).to.equal(null);
      expect(await response.text()).to.contain(`<code>${code}</code>`);
    };
    const sessionCookieOf = (response: Response) =>
      response.headers.getSetCookie().find((cookie) => /^(__Host-)?gatehouse\.sid=[^;]/.test(cookie));
    /** The flow record of an answer, read and rewritten through the pending-sign-in store. */
    const rewriteFlow = async (answer: ProviderAnswer, change: Record<string, unknown>) => {
      const params = answer.form ?? Object.fromEntries(new URL(answer.url).searchParams);
      const correlation = params.RelayState ?? params.state ?? '';
      const key = `flow:${encodeHexLowerCase(sha256(new TextEncoder().encode(correlation)))}`;
      const store = run.app.gatehouse.stores.pendingSignIns;
      const flow = await store.take(key);
      expect(flow, 'the flow record of the answer').to.not.equal(undefined);
      await store.create(key, { ...flow, ...change }, 60_000);
    };

    it('signs in: a new session holding the normalized claims, then back to the return URL', async () => {
      const browser = new TestBrowser();
      const answer = await startSignIn(browser);
      const response = await deliver(browser, answer);
      expect(response.status).to.equal(302);
      expect(response.headers.get('location')).to.equal('/api/app-info');
      expect(response.headers.get('cache-control')).to.equal('no-store');
      expect(sessionCookieOf(response)).to.match(/httponly/i);
      const token = browser.sessionToken(run.app.url) ?? '';
      const session = await run.app.gatehouse.stores.sessions.get(sessionStoreKey(token));
      const signIn = await run.app.gatehouse.stores.sessions.get(`signin:${String(session?.signIn)}`);
      const claims = JSON.stringify(signIn?.principal);
      expect(claims).to.contain(JSON.stringify(['application:subject', run.expected.subject]));
      if (run.expected.name) expect(claims).to.contain(JSON.stringify(['application:name', run.expected.name]));
      if (run.expected.email) expect(claims).to.contain(JSON.stringify(['application:email', run.expected.email]));
      expect((await browser.get(`${run.app.url}/api/app-info`)).status).to.equal(200);
    });

    it('refuses an answer in a browser that started no sign-in (idp.flow_missing), redeeming nothing', async () => {
      const answer = await startSignIn(new TestBrowser());
      const before = await run.redeemed();
      const stranger = new TestBrowser();
      const response = await deliver(stranger, answer);
      await expectRefused(response, 400, 'idp.flow_missing');
      expect(sessionCookieOf(response)).to.equal(undefined);
      expect(await run.redeemed()).to.equal(before);
    });

    it('refuses an expired flow (idp.flow_expired), redeeming nothing', async () => {
      const browser = new TestBrowser();
      const answer = await startSignIn(browser);
      await rewriteFlow(answer, { createdAt: Date.now() - 16 * 60 * 1000 });
      const before = await run.redeemed();
      await expectRefused(await deliver(browser, answer), 400, 'idp.flow_expired');
      expect(await run.redeemed()).to.equal(before);
      expect(browser.sessionToken(run.app.url)).to.equal(undefined);
    });

    it('refuses a replayed answer (idp.flow_missing): the flow was used once', async () => {
      const browser = new TestBrowser();
      const answer = await startSignIn(browser);
      expect((await deliver(browser, answer)).status).to.equal(302);
      const before = await run.redeemed();
      await expectRefused(await deliver(browser, answer), 400, 'idp.flow_missing');
      expect(await run.redeemed()).to.equal(before);
    });

    it('refuses an answer delivered to another browser (idp.state_mismatch) without using up the flow', async () => {
      const victim = new TestBrowser();
      await challenge(victim); // the victim has a sign-in of its own in progress
      const owner = new TestBrowser();
      const answer = await startSignIn(owner);
      const before = await run.redeemed();
      await expectRefused(await deliver(victim, answer), 400, 'idp.state_mismatch');
      expect(await run.redeemed()).to.equal(before);
      expect(victim.sessionToken(run.app.url)).to.equal(undefined);
      expect((await deliver(owner, answer)).status, 'the owner still completes').to.equal(302);
    });

    it('refuses an answer for a flow started with another provider (idp.flow_wrong_provider), redeeming nothing', async () => {
      const browser = new TestBrowser();
      const answer = await startSignIn(browser);
      const other = ['OpenIdConnect', 'Saml2', 'Social1'].find((key) => key !== harness.key);
      await rewriteFlow(answer, { provider: other });
      const before = await run.redeemed();
      await expectRefused(await deliver(browser, answer), 400, 'idp.flow_wrong_provider');
      expect(await run.redeemed()).to.equal(before);
    });

    it("reports the provider's refusal (idp.provider_error) and signs nobody in", async () => {
      const browser = new TestBrowser();
      const answer = await startSignIn(browser, 'deny');
      const response = await deliver(browser, answer);
      await expectRefused(response, 400, 'idp.provider_error');
      expect(browser.sessionToken(run.app.url)).to.equal(undefined);
    });

    it('answers 503 idp.timeout within HttpTimeoutSeconds when the provider hangs, signing nobody in', async () => {
      const started = performance.now();
      const response = await run.provokeTimeout();
      expect(performance.now() - started).to.be.below(
        run.app.gatehouse.settings.Authentication.HttpTimeoutSeconds * 1000 + 1500,
      );
      await expectRefused(response, 503, 'idp.timeout');
      expect(sessionCookieOf(response)).to.equal(undefined);
    });

    it('accepts only the methods of its protocol at the callback path, and POSTed messages only up to its limit', async () => {
      const provider = run.app.gatehouse.identityProviders.find((p) => p.info.key === harness.key);
      const path = `${run.app.url}${provider?.info.callbackPath ?? ''}`;
      const put = await fetch(path, { method: 'PUT' });
      expect(put.status).to.equal(405);
      expect(put.headers.get('allow')?.split(', ')).to.have.members([
        ...new Set([...(provider?.callback.messageMethods ?? []), ...(provider?.callbackDocument ? ['GET'] : [])]),
      ]);
      if (!provider?.callback.messageMethods.includes('POST')) return;
      const limit = provider.callback.maxBodyBytes;
      const tooLarge = await crossSitePost({ method: 'POST', url: path, form: { filler: 'x'.repeat(limit) } });
      expect(tooLarge.status).to.equal(413);
    });

    // Only for providers that can end a session on their side and say so (OpenID Connect
    // back-channel logout, SAML Single Logout): registered for those alone, never skipped
    // at run time. What both channels share: the session ends; anything else at the logout
    // path is refused and ends nothing.
    if (harness.signsOutAtProvider)
      describe('logout from the provider', function () {
        const provider = () => run.app.gatehouse.identityProviders.find((p) => p.info.key === harness.key);
        before(function () {
          expect(provider()?.logoutEndpoints, 'the logout paths of a provider that signs out').to.not.be.empty;
          expect(provider()?.receiveLogout, 'how the provider reads its logout messages').to.be.a('function');
          expect(run.signOutAtProvider, 'how the harness signs out at the provider').to.be.a('function');
        });

        it('ends the session when the user signs out at the provider: anonymous at its next request, its records gone', async () => {
          const browser = new TestBrowser();
          const answer = await startSignIn(browser);
          expect((await deliver(browser, answer)).status).to.equal(302);
          const key = sessionStoreKey(browser.sessionToken(run.app.url) ?? '');
          const session = await run.app.gatehouse.stores.sessions.get(key);
          expect((await browser.get(`${run.app.url}/api/app-info`)).status).to.equal(200);

          await run.signOutAtProvider?.(answer);

          expect((await browser.get(`${run.app.url}/api/app-info`)).status).to.equal(401);
          const sessions = run.app.gatehouse.stores.sessions;
          expect(await sessions.get(key)).to.equal(undefined);
          expect(await sessions.get(`signin:${String(session?.signIn)}`)).to.equal(undefined);
          expect(await sessions.get(`provider-session:${String(session?.signIn)}`)).to.equal(undefined);
        });

        it('refuses other methods at each logout path (405 with Allow), and a message that is no logout message (400), ending nothing', async () => {
          const browser = new TestBrowser();
          expect((await deliver(browser, await startSignIn(browser))).status).to.equal(302);
          for (const endpoint of provider()?.logoutEndpoints ?? []) {
            const path = `${run.app.url}${endpoint.path}`;
            const accepted = new Set<string>(endpoint.messageMethods);
            for (const method of ['PUT', 'GET', 'POST'].filter((candidate) => !accepted.has(candidate))) {
              const refused = await fetch(path, { method });
              expect(refused.status, `${method} ${endpoint.path}`).to.equal(405);
              expect(refused.headers.get('allow')?.split(', ')).to.have.members([...endpoint.messageMethods]);
            }
            const forged = accepted.has('POST')
              ? await fetch(path, {
                  method: 'POST',
                  redirect: 'manual',
                  body: new URLSearchParams({ message: 'not a logout message' }),
                })
              : await fetch(`${path}?message=not+a+logout+message`, { redirect: 'manual' });
            expect(forged.status, endpoint.path).to.equal(400);
            expect(forged.headers.get('cache-control')).to.equal('no-store');
            expect((await browser.get(`${run.app.url}/api/app-info`)).status).to.equal(200);
          }
        });
      });

    it('logs nothing secret of a sign-in: no client secret, code, state, token or message', async () => {
      const browser = new TestBrowser();
      const answer = await startSignIn(browser);
      expect((await deliver(browser, answer)).status).to.equal(302);
      const logs = run.app.logs.join('\n');
      for (const secret of run.secretsOf(answer)) expect(logs, 'a secret in the log').not.to.contain(secret);
    });
  });
}
