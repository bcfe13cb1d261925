import { startDemoIdentityProvider, type DemoIdentityProvider } from '../../scripts/demo-identity-provider.js';
import { oidcConnection, startWithConnections } from './connection-app.js';
import { deliverAnswer } from './deliver-answer.js';
import { CookieJar, driveOidcAnswer } from './drive-oidc-login.js';
import type { HarnessRun, ProviderAnswer, ProviderHarness } from './identity-provider-harness.js';
import { CLIENT_SECRET, freePort, startIdentityProvider, startOidcApp, TestBrowser, type OidcApp } from './oidc-app.js';
import { signOutAtProvider } from './oidc-provider-logout.js';

/**
 * OpenID Connect against the real oidc-provider, answering by redirect or by form_post:
 * the deployment's own provider section, or with `connection` a connection of that name
 * (organization `globex`, the provider's users' domain `example.test`), its callback and
 * back-channel logout paths under `/connections/<name>/`.
 */
export function oidcHarness(
  responseMode: 'query' | 'form_post',
  options: { connection?: string } = {},
): ProviderHarness {
  const { connection } = options;
  const scheme = connection ?? 'OpenIdConnect';
  return {
    name: `${connection ? 'an OpenIdConnect connection' : 'OpenIdConnect'} (oidc-provider, response_mode=${responseMode})`,
    key: scheme,
    deniedCode: 'idp.sign_in_cancelled',
    signsOutAtProvider: true,
    async start(env = {}): Promise<HarnessRun> {
      const port = await freePort();
      const { idp, app } = connection
        ? await startConnection(connection, port, responseMode, env)
        : await startProviderSection(port, responseMode, env);
      // The provider's cookies of each answer's user: signing out at the provider needs them.
      const providerCookies = new WeakMap<ProviderAnswer, CookieJar>();
      const answer = async (location: string, outcome: 'accept' | 'deny' = 'accept') => {
        const jar = new CookieJar();
        const answered = await driveOidcAnswer(location, 'admin', jar, { deny: outcome === 'deny' });
        const expected = responseMode === 'form_post' ? 'POST' : 'GET';
        if (answered.method !== expected)
          throw new Error(`the provider answered by ${answered.method}, not ${expected}`);
        providerCookies.set(answered, jar);
        return answered;
      };
      return {
        app,
        scheme,
        answer,
        expected: { subject: 'admin', name: 'Ada Admin', email: 'ada@example.test' },
        redeemed: async () => idp.tokenRequests,
        async provokeTimeout() {
          const browser = new TestBrowser();
          const challenge = await browser.get(`${app.url}/External/Challenge?provider=${scheme}`);
          const ready = await answer(challenge.headers.get('location') ?? '');
          idp.stalled = true;
          try {
            return await deliverAnswer(browser, ready, app.url);
          } finally {
            idp.stalled = false;
          }
        },
        async signOutAtProvider(answered: ProviderAnswer) {
          const jar = providerCookies.get(answered);
          if (!jar) throw new Error('no provider session behind this answer');
          await signOutAtProvider(jar, idp.issuer);
        },
        secretsOf: (delivered: ProviderAnswer) => {
          const params = delivered.form ?? Object.fromEntries(new URL(delivered.url).searchParams);
          return [CLIENT_SECRET, params.code ?? 'no code', params.state ?? 'no state'];
        },
        close: async () => {
          await app.close();
          await idp.close();
        },
      };
    },
  };
}

async function startProviderSection(
  port: number,
  responseMode: string,
  env: Record<string, string>,
): Promise<{ idp: DemoIdentityProvider; app: OidcApp }> {
  const idp = await startIdentityProvider([`http://127.0.0.1:${port}`]);
  const app = await startOidcApp(idp.issuer, port, {
    ProjectTemplate__Authentication__Providers__OpenIdConnect__ResponseMode: responseMode,
    ...env,
  });
  return { idp, app };
}

async function startConnection(
  name: string,
  port: number,
  responseMode: string,
  env: Record<string, string>,
): Promise<{ idp: DemoIdentityProvider; app: OidcApp }> {
  const origin = `http://127.0.0.1:${port}`;
  const base = `${origin}/connections/${name.toLowerCase()}`;
  const idp = await startDemoIdentityProvider({
    clients: [
      {
        clientId: 'gatehouse-test',
        clientSecret: CLIENT_SECRET,
        redirectUris: [`${base}/signin-oidc`],
        postLogoutRedirectUris: [`${origin}/`],
        backchannelLogoutUri: `${base}/backchannel-logout`,
      },
    ],
  });
  const client = { clientId: 'gatehouse-test', clientSecret: CLIENT_SECRET };
  const section = oidcConnection('globex', ['example.test'], idp.issuer, client, { ResponseMode: responseMode });
  const app = await startWithConnections(port, { [name]: section }, env);
  return { idp, app };
}
