import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import {
  signingKey,
  startDemoIdentityProvider,
  type DemoIdentityProvider,
} from '../../../scripts/demo-identity-provider.js';
import type { DemoUsers } from '../../../scripts/demo-users.js';
import { connectionReplayShare } from '../../../src/adapters/session/replay-share-session-store.js';
import { challenge, connectionEnv, oidcConnection } from '../../support/connection-app.js';
import { driveOidcLogin } from '../../support/drive-oidc-login.js';
import { signLogoutToken } from '../../support/logout-tokens.js';
import { freePort, TestBrowser } from '../../support/oidc-app.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';
import { describeOnEachStore } from '../../support/each-session-store.js';

const SECRET = 'SENTINEL-replay-share-client-secret-7c21';
const MAX_REPLAY_RECORDS = 60;
const ACME_USERS: DemoUsers = {
  ada: { login: 'ada', name: 'Ada Lovelace', email: 'ada@acme.test', roles: [], permissions: [] },
};
/** Grace of Globex, under the login the test driver types. */
const GLOBEX_USERS: DemoUsers = {
  user: { login: 'user', name: 'Grace Hopper', email: 'grace@globex.test', roles: [], permissions: [] },
};
const DAY_S = 23 * 60 * 60;

/**
 * Two organizations with an OpenID Connect connection each. Acme's identity provider
 * (hostile, or merely broken) signs logout tokens with unique `jti`s and day-long
 * lifetimes as fast as it can: it spends its own share of the replay records and its own
 * logouts are refused, while Globex's real logout still signs Grace out. Tokens issued long
 * ago or in the future are refused whatever their `exp`.
 */
describeOnEachStore(
  (storeName) => `connections: each organization's share of the logout replay records (${storeName} store)`,
  function (storeEnv) {
    this.timeout(30_000);
    const acmeKey = signingKey();
    const globexKey = signingKey();
    let acme: DemoIdentityProvider;
    let globex: DemoIdentityProvider;
    let app: RunningGatehouse;

    before(async () => {
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      const client = (name: string) => ({
        clientId: `${name}-client`,
        clientSecret: SECRET,
        redirectUris: [`${origin}/connections/${name}/signin-oidc`],
        postLogoutRedirectUris: [`${origin}/`],
      });
      acme = await startDemoIdentityProvider({ clients: [client('acme')], users: ACME_USERS, signingKey: acmeKey });
      globex = await startDemoIdentityProvider({
        clients: [client('globex')],
        users: GLOBEX_USERS,
        signingKey: globexKey,
      });
      const connection = (name: string, issuer: string) =>
        connectionEnv(
          name,
          oidcConnection(name, [`${name}.test`], issuer, { clientId: `${name}-client`, clientSecret: SECRET }),
        );
      app = await startGatehouse(
        {
          ProjectTemplate__Hosting__PublicOrigin: origin,
          ProjectTemplate__Authentication__HttpTimeoutSeconds: '2',
          ProjectTemplate__Session__MaxReplayRecords: String(MAX_REPLAY_RECORDS),
          ...connection('acme', acme.issuer),
          ...connection('globex', globex.issuer),
          ...storeEnv(),
        },
        { port },
      );
    });
    after(async () => {
      await app?.close();
      await Promise.all([acme?.close(), globex?.close()]);
    });

    const postLogout = async (name: string, token: string) => {
      const response = await fetch(`${app.url}/connections/${name}/backchannel-logout`, {
        method: 'POST',
        body: new URLSearchParams({ logout_token: token }),
      });
      const body = await response.text();
      return { status: response.status, retryAfter: response.headers.get('retry-after'), body };
    };
    const acmeToken = (claims: Record<string, unknown> = {}) => {
      const now = Math.floor(Date.now() / 1000);
      return signLogoutToken(acmeKey, {
        issuer: acme.issuer,
        audience: 'acme-client',
        claims: { sub: `nobody-${randomUUID()}`, iat: now, exp: now + DAY_S, ...claims },
      });
    };
    const signedInAtGlobex = async () => {
      const browser = new TestBrowser();
      const location = await challenge(browser, app.url, 'globex', '/api/app-info');
      const callback = await driveOidcLogin(location, 'user', browser.jar);
      expect((await browser.get(callback.href)).status).to.equal(302);
      return browser;
    };
    const appInfo = async (browser: TestBrowser) => {
      const response = await browser.get(`${app.url}/api/app-info`, { accept: 'application/json' });
      await response.body?.cancel();
      return response.status;
    };

    it("one organization's flood of logout tokens refuses its own logouts only", async () => {
      const grace = await signedInAtGlobex();
      expect(await appInfo(grace)).to.equal(200);

      // As many tokens as the whole store holds: without shares they would fill it.
      const share = connectionReplayShare(MAX_REPLAY_RECORDS);
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let sent = 0; sent < MAX_REPLAY_RECORDS; sent++) {
        const answer = await postLogout('acme', await acmeToken());
        statuses.push(answer.status);
        retryAfter ??= answer.retryAfter;
      }
      expect(
        statuses.slice(0, share).every((status) => status === 200),
        'within the share',
      ).to.equal(true);
      expect(
        statuses.slice(share).every((status) => status === 503),
        'past the share',
      ).to.equal(true);
      expect(Number(retryAfter)).to.be.greaterThan(0);
      expect(app.logs.join('\n'))
        .to.include('spent its share of the replay records')
        .and.include('"connection":"acme"');

      // Globex's provider signs Grace out: accepted, and her session ends.
      const now = Math.floor(Date.now() / 1000);
      const logout = await postLogout(
        'globex',
        await signLogoutToken(globexKey, {
          issuer: globex.issuer,
          audience: 'globex-client',
          claims: { sub: 'user', iat: now, exp: now + DAY_S },
        }),
      );
      expect(logout.status, logout.body).to.equal(200);
      expect(await appInfo(grace), 'Grace after her organization’s logout').to.equal(401);
    });

    it('refuses a logout token issued long ago or in the future, whatever its exp', async () => {
      const now = Math.floor(Date.now() / 1000);
      const old = await postLogout('globex', await globexToken(globexKey, globex, { iat: now - 7 * 60 }));
      expect(old.status).to.equal(400);
      expect(old.body).to.include('idp.logout_token_expired');
      const future = await postLogout('globex', await globexToken(globexKey, globex, { iat: now + 5 * 60 }));
      expect(future.status).to.equal(400);
      expect(future.body).to.include('idp.logout_token_invalid');
    });
  },
);

function globexToken(
  key: JsonWebKey & { kid: string },
  provider: DemoIdentityProvider,
  claims: Record<string, unknown>,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return signLogoutToken(key, {
    issuer: provider.issuer,
    audience: 'globex-client',
    claims: { sub: 'user', exp: now + DAY_S, ...claims },
  });
}
