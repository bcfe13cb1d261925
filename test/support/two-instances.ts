import type { DemoIdentityProvider } from '../../scripts/demo-identity-provider.js';
import { freePort, startIdentityProvider, startOidcApp, type LogoutChannels, type OidcApp } from './oidc-app.js';

export interface TwoInstances {
  idp: DemoIdentityProvider;
  /** The instance at the public origin: the provider's redirect and logout URIs name it. */
  a: OidcApp;
  /** Another instance sharing the store: it learns of anything A does through Redis only. */
  b: OidcApp;
  bUrl: string;
  close(): Promise<void>;
}

/** A real OpenID provider and two Gatehouse instances behind one public origin (A's), sharing one Redis under `keyPrefix`. */
export async function startTwoInstancesOnRedis(
  redisUrl: string,
  keyPrefix: string,
  provider: { signingKey?: JsonWebKey & { kid: string }; logoutChannels?: LogoutChannels; host?: string } = {},
  /** More settings for both instances. */
  env: Record<string, string> = {},
): Promise<TwoInstances> {
  const [portA, portB] = [await freePort(), await freePort()];
  const publicOrigin = `http://127.0.0.1:${portA}`;
  const { signingKey, ...options } = provider;
  const idp = await startIdentityProvider([publicOrigin], signingKey, options);
  const shared = {
    ProjectTemplate__Session__Store: 'Redis',
    ProjectTemplate__Session__Redis__Url: redisUrl,
    ProjectTemplate__Session__Redis__KeyPrefix: keyPrefix,
    ProjectTemplate__Hosting__PublicOrigin: publicOrigin,
    ...env,
  };
  const a = await startOidcApp(idp.issuer, portA, shared);
  const b = await startOidcApp(idp.issuer, portB, shared);
  return {
    idp,
    a,
    b,
    bUrl: `http://127.0.0.1:${portB}`,
    close: async () => {
      await a.close();
      await b.close();
      await idp.close();
    },
  };
}
