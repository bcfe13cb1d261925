/**
 * The three social providers under the identity-provider contract suite: each vendor-shaped
 * server (scripts/vendor-servers/) on loopback and a Gatehouse whose Social1-3 point at it
 * through the endpoint overrides, as an operator would point them at the vendor.
 */
import { startAmazonShapedServer } from '../../scripts/vendor-servers/login-with-amazon.js';
import { startGitHubShapedServer } from '../../scripts/vendor-servers/github-oauth-apps.js';
import { startMicrosoftShapedServer } from '../../scripts/vendor-servers/microsoft-identity-platform.js';
import type { DemoLogin } from '../../scripts/demo-users.js';
import type { VendorServer, VendorServerOptions } from '../../scripts/vendor-servers/vendor-server.js';
import { CookieJar } from './drive-oidc-login.js';
import { freePort } from '../../scripts/free-port.js';
import type { HarnessRun, ProviderAnswer, ProviderHarness } from './identity-provider-harness.js';
import { startGatehouse, type RunningGatehouse } from './start-gatehouse.js';
import type { ProviderRecord } from '../../src/adapters/provider-record.js';
import { builtInProviders } from '../../src/bootstrap/provider-catalogue.js';

export interface SocialVendor {
  key: string;
  /** The shape of the vendor's server. */
  vendor: 'Microsoft' | 'Amazon' | 'GitHub';
  /** A provider this build does not ship, registered through its record alone (the built-in ones otherwise). */
  record?: ProviderRecord;
  start(options: VendorServerOptions): Promise<VendorServer>;
  /** The application claims each demo account gets from this vendor's fields and the claims table. */
  accounts: Record<DemoLogin, { subject: string; name: string; email?: string }>;
}

export const MICROSOFT: SocialVendor = {
  key: 'Social1',
  vendor: 'Microsoft',
  start: startMicrosoftShapedServer,
  accounts: {
    // Graph `mail` wins over `userPrincipalName` ...
    admin: { subject: '6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f', name: 'Ada Admin', email: 'ada@example.test' },
    // ... which stands in when `mail` is null.
    user: { subject: '00000000-0000-0000-4d2a-7be91c3f5a60', name: 'Uma User', email: 'uma@example.test' },
  },
};

export const AMAZON: SocialVendor = {
  key: 'Social2',
  vendor: 'Amazon',
  start: startAmazonShapedServer,
  accounts: {
    admin: { subject: 'amzn1.account.AEADAADMIN7QXZ4J3K2MW5', name: 'Ada Admin', email: 'ada@example.test' },
    user: { subject: 'amzn1.account.AEUMAUSER5H2N8P6R4TBV', name: 'Uma User', email: 'uma@example.test' },
  },
};

export const GITHUB: SocialVendor = {
  key: 'Social3',
  vendor: 'GitHub',
  start: startGitHubShapedServer,
  accounts: {
    // The verified primary, not the unverified public profile email.
    admin: { subject: '1001', name: 'Ada Admin', email: 'ada@example.test' },
    // No name: the login stands in; the only verified address is not the primary.
    user: { subject: '1002', name: 'uma-user', email: 'uma@example.test' },
  },
};

export const SOCIAL_VENDORS: readonly SocialVendor[] = [MICROSOFT, AMAZON, GITHUB];

export const CLIENT_ID = 'gatehouse-social-test';
/** Sentinels: each must never appear in a log line. */
export const clientSecretOf = (vendor: SocialVendor) => `SENTINEL-${vendor.vendor.toLowerCase()}-client-secret-9c41`;

/** What the social tests need beyond the contract suite's run: the vendor's server and the choice of account. */
export interface SocialHarnessRun extends HarnessRun {
  server: VendorServer;
  /** Like answer(), as the given demo account. */
  answerAs(challengeLocation: string, login: DemoLogin, outcome?: 'accept' | 'deny'): Promise<ProviderAnswer>;
}

export interface SocialHarness extends ProviderHarness {
  start(env?: Record<string, string>): Promise<SocialHarnessRun>;
}

/** The settings that point a social provider at a vendor-shaped server. */
export function endpointOverrides(key: SocialVendor['key'], server: VendorServer): Record<string, string> {
  const prefix = `ProjectTemplate__Authentication__Providers__${key}__`;
  return {
    [`${prefix}AuthorizationEndpoint`]: server.endpoints.authorization,
    [`${prefix}TokenEndpoint`]: server.endpoints.token,
    [`${prefix}UserInformationEndpoint`]: server.endpoints.userInformation,
    ...(server.endpoints.userEmails ? { [`${prefix}UserEmailsEndpoint`]: server.endpoints.userEmails } : {}),
  };
}

export function socialHarness(vendor: SocialVendor): SocialHarness {
  return {
    name: `${vendor.key} (${vendor.vendor}-shaped server)`,
    key: vendor.key,
    deniedCode: 'idp.sign_in_cancelled',
    async start(env = {}) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const callbackPath = `/signin-${vendor.key.toLowerCase()}`;
      const clientSecret = clientSecretOf(vendor);
      const server = await vendor.start({
        clients: [{ clientId: CLIENT_ID, clientSecret, redirectUris: [`${url}${callbackPath}`] }],
      });
      const prefix = `ProjectTemplate__Authentication__Providers__${vendor.key}__`;
      let app: RunningGatehouse;
      try {
        app = await startGatehouse(
          {
            ProjectTemplate__Hosting__PublicOrigin: url,
            ProjectTemplate__Authentication__HttpTimeoutSeconds: '0.5',
            [`${prefix}Enabled`]: 'true',
            [`${prefix}ClientId`]: CLIENT_ID,
            [`${prefix}ClientSecret`]: clientSecret,
            ...endpointOverrides(vendor.key, server),
            ...env,
          },
          { port, ...(vendor.record ? { providers: [...builtInProviders, vendor.record] } : {}) },
        );
      } catch (error) {
        await server.close();
        throw error;
      }
      const { gatehouse, logs } = app;
      const scheme = gatehouse.settings.Authentication.Providers[vendor.key]?.Scheme ?? '';

      const answerAs = async (challengeLocation: string, login: DemoLogin, outcome: 'accept' | 'deny' = 'accept') => {
        const page = await fetch(challengeLocation);
        const html = await page.text();
        const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
        const request = /name="request" value="([^"]+)"/.exec(html)?.[1];
        if (page.status !== 200 || !action || !request) {
          throw new Error(`${vendor.vendor}-shaped server answered ${page.status} to the authorization request`);
        }
        const decision = outcome === 'accept' ? 'allow' : 'deny';
        const answer = await fetch(new URL(action, challengeLocation), {
          method: 'POST',
          body: new URLSearchParams({ request, login, decision }),
          redirect: 'manual',
        });
        const location = answer.headers.get('location');
        if (answer.status !== 302 || !location) throw new Error(`consent answered ${answer.status}`);
        return { method: 'GET' as const, url: location };
      };

      const run: SocialHarnessRun = {
        app: { url, gatehouse, logs },
        scheme,
        server,
        answerAs,
        answer: (challengeLocation, outcome) => answerAs(challengeLocation, 'admin', outcome),
        expected: vendor.accounts.admin,
        redeemed: async () => server.requests.token,
        async provokeTimeout() {
          server.hanging.add('token');
          try {
            const jar = new CookieJar();
            const challenge = await jar.fetch(`${url}/External/Challenge?provider=${encodeURIComponent(scheme)}`);
            const answer = await answerAs(challenge.headers.get('location') ?? '', 'admin');
            return await jar.fetch(answer.url, { headers: { accept: 'text/html' } });
          } finally {
            server.hanging.delete('token');
          }
        },
        secretsOf(answer) {
          const parameters = new URL(answer.url).searchParams;
          return [clientSecret, parameters.get('code') ?? '', parameters.get('state') ?? '', ...server.issued].filter(
            (value) => value !== '',
          );
        },
        async close() {
          await gatehouse.shutdown();
          await server.close();
        },
      };
      return run;
    },
  };
}

export const microsoftHarness = socialHarness(MICROSOFT);
export const amazonHarness = socialHarness(AMAZON);
export const githubHarness = socialHarness(GITHUB);
