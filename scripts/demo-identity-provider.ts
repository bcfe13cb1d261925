/**
 * A real OpenID provider (node-oidc-provider 9) on loopback, for the demo and for tests.
 * Development only: plain http, in-memory storage, a sign-in page of our own (any
 * password is accepted for its users: the two demo users unless it is given others).
 *
 *   npx tsx scripts/demo-identity-provider.ts
 *
 * starts it on DEMO_IDP_PORT (default 4010) for a Gatehouse at DEMO_APP_ORIGIN (default
 * http://localhost:3000) and prints the OpenIdConnect settings to use.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import Provider, { interactionPolicy, type OidcAccount, type ProviderClient } from 'oidc-provider';
import {
  DEMO_ACR,
  demoInteractions,
  logoutSource,
  postLogoutSuccessSource,
  renderError,
} from './demo-identity-provider-pages.js';
import {
  enableFrontchannelLogout,
  FRONTCHANNEL_CLIENT_METADATA,
  FRONTCHANNEL_DISCOVERY,
} from './demo-identity-provider-frontchannel.js';
import { demoProviderStorage } from './demo-identity-provider-storage.js';
import { DEMO_USERS, type DemoUsers } from './demo-users.js';

export interface DemoClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  /**
   * Where the provider POSTs a logout token when the user signs out there (OpenID Connect
   * Back-Channel Logout 1.0); registered with `backchannel_logout_session_required`, so ID
   * tokens and logout tokens carry the session's `sid`.
   */
  backchannelLogoutUri?: string;
  /**
   * Where the provider's sign-out page points an iframe when the user signs out there
   * (OpenID Connect Front-Channel Logout 1.0), with `iss` and `sid`; the ID tokens carry the
   * session's `sid` (`frontchannel_logout_session_required`).
   */
  frontchannelLogoutUri?: string;
  /** How the client authenticates to the token and PAR endpoints (default `client_secret_basic`). */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';
  /** Its public keys, for `private_key_jwt`. */
  jwks?: { keys: Array<JsonWebKey & { kid?: string }> };
}

export interface DemoIdentityProviderOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  clients: DemoClient[];
  /** Path of the issuer (`/oidc`); default none. */
  issuerPath?: string;
  /** Access token lifetime in seconds (default 3600); tests use a short one to exercise refresh. */
  accessTokenTtlSeconds?: number;
  /** The RS256 private key (JWK) it signs with; default a fresh one. Tests sign their own logout tokens with it. */
  signingKey?: JsonWebKey & { kid: string };
  /** The people who can sign in here, by login; default the two demo users (`admin`, `user`). */
  users?: DemoUsers;
  /** What its pages call it (default "Demo identity provider"): an organization's provider says whose it is. */
  name?: string;
  /** The client authentication methods it accepts and advertises; default oidc-provider's (all of them). */
  clientAuthMethods?: string[];
  /** The algorithms it accepts client assertions signed with; default oidc-provider's. */
  clientAuthSigningAlgs?: string[];
  /** Refuse authorization requests that were not pushed first (RFC 9126 `require_pushed_authorization_requests`). */
  requirePushedAuthorization?: boolean;
}

export interface DemoIdentityProvider {
  issuer: string;
  users: DemoUsers;
  /** Requests its token endpoint received (code redemptions and refreshes). */
  readonly tokenRequests: number;
  /** Requests its pushed authorization request endpoint received (RFC 9126). */
  readonly pushedRequests: number;
  /** Token and pushed authorization requests that authenticated the client with HTTP Basic (not in the body). */
  readonly basicAuthentications: number;
  /** The header and claims of every client assertion (`private_key_jwt`) it accepted the signature of. */
  readonly clientAssertions: ReadonlyArray<{ header: Record<string, unknown>; claims: Record<string, unknown> }>;
  /** While true, the provider accepts connections and never answers (an outage that hangs). */
  stalled: boolean;
  /**
   * Sign-ins from now on report an authentication this many seconds in the past (its
   * `auth_time`): a provider whose clock is behind, or that ignores `max_age` and answers
   * with an older session. 0 by default.
   */
  authenticatedSecondsAgo: number;
  /**
   * While true, a second factor the application asks for may be skipped (a provider that
   * does not enforce what it is asked; tests of Gatehouse's own check). False by default.
   */
  secondFactorOptional: boolean;
  close(): Promise<void>;
}

/**
 * Claims released per scope. `roles` and `permissions` travel with the `profile` scope,
 * so Gatehouse's default Scopes (openid profile email) receive them without extra
 * configuration. Like every OpenID provider by default, oidc-provider puts only `sub` (and here what it says of the authentication) in
 * the ID token (conformIdTokenClaims): the rest comes from the userinfo endpoint.
 */
const CLAIMS_BY_SCOPE = {
  // With what the ID token says of the authentication (OIDC Core 2): when, how and at
  // which level the person signed in, for Gatehouse's step-up (docs/step-up.md).
  openid: ['sub', 'auth_time', 'acr', 'amr'],
  profile: ['name', 'preferred_username', 'roles', 'permissions'],
  email: ['email', 'email_verified'],
};

export async function startDemoIdentityProvider(options: DemoIdentityProviderOptions): Promise<DemoIdentityProvider> {
  const host = options.host ?? '127.0.0.1';
  const users: DemoUsers = options.users ?? DEMO_USERS;
  const issuerPath = (options.issuerPath ?? '').replace(/\/+$/, '');
  let handle: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  let interactions: ((req: IncomingMessage, res: ServerResponse) => Promise<boolean>) | undefined;
  let tokenRequests = 0;
  let pushedRequests = 0;
  let basicAuthentications = 0;
  const clientAssertions: Array<{ header: Record<string, unknown>; claims: Record<string, unknown> }> = [];
  const server = createServer(async (req, res) => {
    if (state.stalled) return; // never answered; close() drops the connection
    const path = req.url?.split('?')[0];
    if (req.method === 'POST' && path === `${issuerPath}/token`) tokenRequests += 1;
    if (req.method === 'POST' && path === `${issuerPath}/request`) pushedRequests += 1;
    const clientCall = req.method === 'POST' && (path === `${issuerPath}/token` || path === `${issuerPath}/request`);
    if (clientCall && /^basic /i.test(req.headers.authorization ?? '')) basicAuthentications += 1;
    if (interactions && (await interactions(req, res))) return;
    // oidc-provider routes on the path below its mount point: strip the issuer path as a
    // mount would, keeping originalUrl so that it builds its URLs with the prefix.
    if (issuerPath && req.url?.startsWith(issuerPath)) {
      Object.assign(req, { originalUrl: req.url });
      req.url = req.url.slice(issuerPath.length) || '/';
    }
    if (handle) void handle(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const authority = host.includes(':') ? `[${host}]` : host;
  const issuer = `http://${authority}:${port}${issuerPath}`;

  const provider = new Provider(issuer, {
    clients: options.clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: c.redirectUris,
      post_logout_redirect_uris: c.postLogoutRedirectUris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: c.tokenEndpointAuthMethod ?? 'client_secret_basic',
      ...(c.jwks === undefined ? {} : { jwks: c.jwks }),
      id_token_signed_response_alg: 'RS256',
      // auth_time in every ID token, as Entra ID, Okta, Auth0 and Keycloak send it: a step-up
      // policy reads it (docs/step-up.md).
      require_auth_time: true,
      ...(c.backchannelLogoutUri === undefined
        ? {}
        : { backchannel_logout_uri: c.backchannelLogoutUri, backchannel_logout_session_required: true }),
      ...(c.frontchannelLogoutUri === undefined
        ? {}
        : { frontchannel_logout_uri: c.frontchannelLogoutUri, frontchannel_logout_session_required: true }),
    })),
    extraClientMetadata: { properties: FRONTCHANNEL_CLIENT_METADATA },
    discovery: FRONTCHANNEL_DISCOVERY,
    // Our own signing key, so oidc-provider does not fall back to its published dev key.
    jwks: { keys: [{ ...(options.signingKey ?? signingKey()), alg: 'RS256', use: 'sig' }] },
    // oidc-provider refuses to call special-use addresses (loopback, private networks): right
    // for a real provider, whose clients' back-channel URIs could point anywhere inside its
    // network. This one runs on loopback for a Gatehouse on loopback, so its logout tokens
    // go out by plain fetch (its 2.5 s time-out stays: it sets the signal itself).
    fetch: (url: string, init: RequestInit & { dispatcher?: unknown }) => {
      const { dispatcher: _specialUseGuard, ...rest } = init;
      return fetch(url, rest);
    },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    claims: CLAIMS_BY_SCOPE,
    acrValues: [DEMO_ACR.password, DEMO_ACR.mfa],
    findAccount: (_ctx: unknown, sub: string): OidcAccount | undefined => {
      const user = Object.hasOwn(users, sub) ? users[sub] : undefined;
      if (!user) return undefined;
      return {
        accountId: user.login,
        claims: () => ({
          sub: user.login,
          name: user.name,
          preferred_username: user.login,
          email: user.email,
          email_verified: true,
          roles: [...user.roles],
          permissions: [...user.permissions],
        }),
      };
    },
    // Refresh tokens for every client allowed the grant, without requiring offline_access.
    issueRefreshToken: (_ctx: unknown, client: ProviderClient) => client.grantTypeAllowed('refresh_token'),
    // Every refresh token is good for one use, as with Auth0, Okta or Entra ID rotation: a
    // second use of a spent one is refused and revokes the grant (oidc-provider's reuse
    // detection), so a double refresh by two instances shows up here as it would there.
    rotateRefreshToken: true,
    pkce: { required: () => true },
    ...(options.clientAuthMethods === undefined ? {} : { clientAuthMethods: options.clientAuthMethods }),
    ...(options.clientAuthSigningAlgs === undefined
      ? {}
      : { enabledJWA: { clientAuthSigningAlgValues: options.clientAuthSigningAlgs } }),
    assertJwtClientAuthClaimsAndHeader: async (
      _ctx: unknown,
      claims: Record<string, unknown>,
      header: Record<string, unknown>,
    ) => {
      clientAssertions.push({ header, claims });
    },
    // Our own storage and pages instead of oidc-provider's development ones, which print a
    // development-only warning or notice at every start or first use (see both files).
    adapter: demoProviderStorage(),
    interactions: {
      policy: demoInteractionPolicy(),
      url: (_ctx: unknown, interaction: { uid: string }) => `${issuerPath}/interaction/${interaction.uid}`,
    },
    renderError,
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      backchannelLogout: { enabled: true },
      pushedAuthorizationRequests: {
        enabled: true,
        requirePushedAuthorizationRequests: options.requirePushedAuthorization === true,
      },
      userinfo: { enabled: true },
    },
    ttl: {
      AccessToken: options.accessTokenTtlSeconds ?? 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 24 * 3600,
      Interaction: 3600,
      Session: 24 * 3600,
      Grant: 24 * 3600,
    },
  });
  enableFrontchannelLogout(provider);
  handle = provider.callback();
  interactions = demoInteractions(
    provider,
    issuerPath,
    users,
    options.name,
    () => Math.floor(Date.now() / 1000 - state.authenticatedSecondsAgo),
    () => state.secondFactorOptional,
  );

  const state: DemoIdentityProvider = {
    issuer,
    users,
    get tokenRequests() {
      return tokenRequests;
    },
    get pushedRequests() {
      return pushedRequests;
    },
    get basicAuthentications() {
      return basicAuthentications;
    },
    clientAssertions,
    stalled: false,
    authenticatedSecondsAgo: 0,
    secondFactorOptional: false,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
  return state;
}

/**
 * oidc-provider's prompts, and one more reason to show the login page: the client asks for
 * the two-factor class in `acr_values` and the provider's session was made with less
 * (as Entra ID, Okta or Keycloak do: acr_values steps the session up).
 */
function demoInteractionPolicy(): ReturnType<typeof interactionPolicy.base> {
  const { Check } = interactionPolicy;
  const policy = interactionPolicy.base();
  policy.get('login')?.checks.add(
    new Check('acr_values_mfa', 'the client asks for a second factor', ({ oidc }) => {
      const asked =
        typeof oidc.params.acr_values === 'string' && oidc.params.acr_values.split(' ').includes(DEMO_ACR.mfa);
      return asked && oidc.session.acr !== DEMO_ACR.mfa ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT;
    }),
  );
  return policy;
}

/** A fresh RS256 key (2048 bits: openid-client refuses smaller RSA keys). */
export function signingKey(): JsonWebKey & { kid: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('hex') };
}

async function main(): Promise<void> {
  const appOrigin = (process.env['DEMO_APP_ORIGIN'] ?? 'http://localhost:3000').replace(/\/+$/, '');
  const clientId = process.env['DEMO_CLIENT_ID'] ?? 'gatehouse-demo';
  const clientSecret = process.env['DEMO_CLIENT_SECRET'] ?? randomBytes(24).toString('base64url');
  const idp = await startDemoIdentityProvider({
    port: Number(process.env['DEMO_IDP_PORT'] ?? 4010),
    host: process.env['DEMO_IDP_HOST'] ?? '127.0.0.1',
    clients: [
      {
        clientId,
        clientSecret,
        redirectUris: [`${appOrigin}/signin-oidc`],
        postLogoutRedirectUris: [`${appOrigin}/`],
        backchannelLogoutUri: `${appOrigin}/backchannel-logout-oidc`,
        frontchannelLogoutUri: `${appOrigin}/frontchannel-logout-oidc`,
      },
    ],
  });
  console.log(`Demo identity provider (development only) at ${idp.issuer}
Sign in as "admin" (Ada Admin: Administrator, application.manage) or "user" (Uma User), any password.
Gatehouse settings (this client secret is a throw-away demo value):
  ProjectTemplate__Authentication__Providers__OpenIdConnect__Enabled=true
  ProjectTemplate__Authentication__Providers__OpenIdConnect__Authority=${idp.issuer}
  ProjectTemplate__Authentication__Providers__OpenIdConnect__ClientId=${clientId}
  ProjectTemplate__Authentication__Providers__OpenIdConnect__ClientSecret=${clientSecret}`);
  const stop = () => void idp.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
