/**
 * The three vendor-shaped servers (Microsoft, Amazon, GitHub) on loopback, each with a
 * client registered for a Gatehouse at `appOrigin`, and the settings that point
 * Social1-3 at them through their endpoint overrides. Used by `npm run demo` and the
 * browser tests. Development only: nothing in src/ imports it.
 */
import { randomBytes } from 'node:crypto';
import { startAmazonShapedServer } from './vendor-servers/login-with-amazon.js';
import { startGitHubShapedServer } from './vendor-servers/github-oauth-apps.js';
import { startMicrosoftShapedServer } from './vendor-servers/microsoft-identity-platform.js';
import type { VendorServer, VendorServerOptions } from './vendor-servers/vendor-server.js';

export type SocialKey = 'Social1' | 'Social2' | 'Social3';

export interface DemoSocialProvider {
  key: SocialKey;
  vendor: 'Microsoft' | 'Amazon' | 'GitHub';
  callbackPath: string;
  server: VendorServer;
}

export interface DemoSocialProviders {
  providers: DemoSocialProvider[];
  /** ProjectTemplate__... settings enabling Social1-3 against the servers (client secrets included: throw-away values). */
  env: Record<string, string>;
  close(): Promise<void>;
}

const VENDORS: ReadonlyArray<{
  key: SocialKey;
  vendor: DemoSocialProvider['vendor'];
  start: (options: VendorServerOptions) => Promise<VendorServer>;
}> = [
  { key: 'Social1', vendor: 'Microsoft', start: startMicrosoftShapedServer },
  { key: 'Social2', vendor: 'Amazon', start: startAmazonShapedServer },
  { key: 'Social3', vendor: 'GitHub', start: startGitHubShapedServer },
];

/** `displayName(vendor)` sets each DisplayName; without it the vendor's own name shows. */
export async function startDemoSocialProviders(
  appOrigin: string,
  displayName?: (vendor: DemoSocialProvider['vendor']) => string,
): Promise<DemoSocialProviders> {
  const providers: DemoSocialProvider[] = [];
  const env: Record<string, string> = {};
  try {
    for (const { key, vendor, start } of VENDORS) {
      const callbackPath = `/signin-${key.toLowerCase()}`;
      const clientId = `gatehouse-demo-${vendor.toLowerCase()}`;
      const clientSecret = randomBytes(24).toString('base64url');
      const server = await start({
        clients: [{ clientId, clientSecret, redirectUris: [`${appOrigin}${callbackPath}`] }],
      });
      providers.push({ key, vendor, callbackPath, server });
      const prefix = `ProjectTemplate__Authentication__Providers__${key}__`;
      Object.assign(env, {
        [`${prefix}Enabled`]: 'true',
        [`${prefix}ClientId`]: clientId,
        [`${prefix}ClientSecret`]: clientSecret,
        [`${prefix}AuthorizationEndpoint`]: server.endpoints.authorization,
        [`${prefix}TokenEndpoint`]: server.endpoints.token,
        [`${prefix}UserInformationEndpoint`]: server.endpoints.userInformation,
        ...(server.endpoints.userEmails ? { [`${prefix}UserEmailsEndpoint`]: server.endpoints.userEmails } : {}),
        ...(displayName ? { [`${prefix}DisplayName`]: displayName(vendor) } : {}),
      });
    }
  } catch (error) {
    await Promise.all(providers.map(({ server }) => server.close()));
    throw error;
  }
  return { providers, env, close: async () => void (await Promise.all(providers.map(({ server }) => server.close()))) };
}
