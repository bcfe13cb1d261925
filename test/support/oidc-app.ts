import { startDemoIdentityProvider, type DemoIdentityProvider } from '../../scripts/demo-identity-provider.js';
import { sessionStoreKey } from '../../src/adapters/koa/session/session-token.js';
import { CookieJar, driveOidcLogin } from './drive-oidc-login.js';
import { freePort } from '../../scripts/free-port.js';
import { startGatehouse, type RunningGatehouse, type StartOptions } from './start-gatehouse.js';

export const CLIENT_SECRET = 'SENTINEL-oidc-client-secret-5d1e';

export type OidcApp = RunningGatehouse;

/** How the provider tells the app of a sign-out there: back channel (the default), front channel, or both. */
export type LogoutChannels = readonly ('back' | 'front')[];

/**
 * A real OpenID provider (oidc-provider) with a client for the given app origins; its
 * logout URIs (back-channel by default) are at the first of them. `signingKey` is the key
 * it signs with; `host` where it listens (another site than the app: `127.0.0.2`).
 */
export async function startIdentityProvider(
  appOrigins: string[],
  signingKey?: JsonWebKey & { kid: string },
  options: { logoutChannels?: LogoutChannels; host?: string } = {},
): Promise<DemoIdentityProvider> {
  const first = appOrigins[0];
  const channels = options.logoutChannels ?? ['back'];
  return startDemoIdentityProvider({
    clients: [
      {
        clientId: 'gatehouse-test',
        clientSecret: CLIENT_SECRET,
        redirectUris: appOrigins.map((origin) => `${origin}/signin-oidc`),
        postLogoutRedirectUris: appOrigins.map((origin) => `${origin}/`),
        ...(first !== undefined && channels.includes('back')
          ? { backchannelLogoutUri: `${first}/backchannel-logout-oidc` }
          : {}),
        ...(first !== undefined && channels.includes('front')
          ? { frontchannelLogoutUri: `${first}/frontchannel-logout-oidc` }
          : {}),
      },
    ],
    ...(signingKey === undefined ? {} : { signingKey }),
    ...(options.host === undefined ? {} : { host: options.host }),
  });
}

/** Gatehouse with its built-in posture and the OpenID Connect provider configured against `issuer`, listening at `port` (its PublicOrigin). */
export function startOidcApp(
  issuer: string,
  port: number,
  env: Record<string, string> = {},
  options: Omit<StartOptions, 'port'> = {},
): Promise<OidcApp> {
  return startGatehouse(
    {
      ProjectTemplate__Hosting__PublicOrigin: `http://127.0.0.1:${port}`,
      ProjectTemplate__Authentication__HttpTimeoutSeconds: '2',
      ProjectTemplate__Authentication__Providers__OpenIdConnect__Enabled: 'true',
      ProjectTemplate__Authentication__Providers__OpenIdConnect__Authority: issuer,
      ProjectTemplate__Authentication__Providers__OpenIdConnect__ClientId: 'gatehouse-test',
      ProjectTemplate__Authentication__Providers__OpenIdConnect__ClientSecret: CLIENT_SECRET,
      ...env,
    },
    { ...options, port },
  );
}

export { freePort };

/** A browser: one cookie jar, redirects followed by hand. */
export class TestBrowser {
  readonly jar = new CookieJar();

  get(url: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.jar.fetch(url, { headers });
  }

  post(url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    return this.jar.fetch(url, { method: 'POST', body: new URLSearchParams(form), headers });
  }

  /** The session cookie's token at `origin`, if any. */
  sessionToken(origin: string): string | undefined {
    return /gatehouse\.sid=([^;]+)/.exec(this.jar.header(origin) ?? '')?.[1];
  }

  /** Starts a challenge at the app and signs `login` in at the provider; returns the callback URL (not yet delivered). */
  async startSignIn(appUrl: string, login: 'admin' | 'user', returnUrl = '/', deny = false): Promise<URL> {
    const challenge = await this.get(
      `${appUrl}/External/Challenge?provider=OpenIdConnect&returnUrl=${encodeURIComponent(returnUrl)}`,
    );
    const location = challenge.headers.get('location');
    if (challenge.status !== 302 || !location) throw new Error(`challenge answered ${challenge.status}`);
    return driveOidcLogin(location, login, this.jar, { deny });
  }

  /** A complete sign-in; returns the callback response. */
  async signIn(appUrl: string, login: 'admin' | 'user', returnUrl = '/'): Promise<Response> {
    const callback = await this.startSignIn(appUrl, login, returnUrl);
    return this.get(callback.href);
  }
}

/** The server-side session record of a browser, read through the store port. */
export async function storedSession(app: OidcApp, browser: TestBrowser) {
  const token = browser.sessionToken(app.url);
  return token ? app.gatehouse.stores.sessions.get(sessionStoreKey(token)) : undefined;
}

export interface StoredTokens {
  accessToken: string;
  idToken: string;
  refreshToken: string;
  expiresAt: number;
}

/** The tokens an OAuth adapter keeps for a browser's session (the provider session's record, referenced from the session). */
export async function storedTokens(
  app: OidcApp,
  browser: TestBrowser,
): Promise<{ key: string; tokens: StoredTokens } | undefined> {
  const session = await storedSession(app, browser);
  const ref = session?.signIn;
  if (session?.providerSession !== true || typeof ref !== 'string') return undefined;
  const key = `provider-session:${ref}`;
  const kept = await app.gatehouse.stores.sessions.get(key);
  return { key, tokens: kept?.record as StoredTokens };
}
