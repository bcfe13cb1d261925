import { BUILT_IN_AUTHN_CONTEXT_METHODS } from '../../../src/domain/claims/authn-context-methods.js';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { expect } from 'chai';
import { startDemoIdentityProvider, type DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { OidcIdentityProvider } from '../../../src/adapters/oidc/oidc-identity-provider.js';
import type { CallbackMessage, ChallengeStart, FlowSecrets } from '../../../src/application/ports/identity-provider.js';
import type { Logger } from '../../../src/application/ports/logger.js';
import { GatehouseError } from '../../../src/domain/errors.js';
import { openIdConnect } from '../../../src/adapters/oidc/open-id-connect.js';
import type { OpenIdConnectSettings } from '../../../src/adapters/oidc/open-id-connect-settings.js';
import { readSessionTokens } from '../../../src/adapters/oauth2/session-tokens.js';
import { providerInfo } from '../../../src/adapters/provider-record.js';
import { MemorySessionStore } from '../../../src/adapters/session/memory-session-store.js';
import { SystemClock } from '../../../src/adapters/system-clock.js';
import { FixedClock } from '../../support/fixed-clock.js';
import { CookieJar, driveOidcLogin } from '../../support/drive-oidc-login.js';
import {
  startMisbehavingOidcProvider,
  type IdTokenDefect,
  type MisbehavingProvider,
} from '../../support/misbehaving-oidc-provider.js';

// Never contacted: the flows stop at the redirect back to the client.
const PUBLIC_ORIGIN = 'http://127.0.0.1:9';
const REDIRECT_URI = `${PUBLIC_ORIGIN}/signin-oidc`;
const POST_LOGOUT_REDIRECT_URI = `${PUBLIC_ORIGIN}/`;
const CLIENT_ID = 'gatehouse-test';
const SENTINEL_SECRET = 'sentinel-client-secret-7f3a9c1e';
const SENTINEL_DESCRIPTION = 'sentinel-error-description-2b8d';

/** The provider's redirect back, as the callback path hands it to the adapter. */
function asMessage(url: URL): CallbackMessage {
  return { method: 'GET', url, form: new URLSearchParams() };
}

class CapturingLogger implements Logger {
  readonly lines: Array<{ level: string; fields: object; message: string }> = [];
  debug(fields: object, message: string): void {
    this.lines.push({ level: 'debug', fields, message });
  }
  info(fields: object, message: string): void {
    this.lines.push({ level: 'info', fields, message });
  }
  warn(fields: object, message: string): void {
    this.lines.push({ level: 'warn', fields, message });
  }
  error(fields: object, message: string): void {
    this.lines.push({ level: 'error', fields, message });
  }
}

/** Everything the suite logged, every error it saw, and every authorization code issued. */
const logger = new CapturingLogger();
const seenErrors: unknown[] = [];
const issuedCodes: string[] = [];

function oidcSettings(authority: string, overrides: Partial<OpenIdConnectSettings> = {}): OpenIdConnectSettings {
  return {
    Enabled: true,
    Scheme: 'OpenIdConnect',
    DisplayName: 'OpenID Connect',
    Authority: authority,
    ClientId: CLIENT_ID,
    ClientSecret: SENTINEL_SECRET,
    ClientAuthentication: 'client_secret_basic',
    ClientCertificate: '',
    ClientKey: '',
    ClientAssertionAudience: 'issuer',
    UsePushedAuthorization: true,
    CallbackPath: '/signin-oidc',
    ResponseType: 'code',
    ResponseMode: 'query',
    SaveTokens: true,
    Scopes: ['openid', 'profile', 'email'],
    SignOutAtProvider: true,
    BackchannelLogoutPath: '/backchannel-logout-oidc',
    BackchannelLogoutAcceptJwtTyp: false,
    FrontchannelLogoutPath: '/frontchannel-logout-oidc',
    ...overrides,
  };
}

function oidcProvider(
  authority: string,
  timeoutMs: number,
  overrides: Partial<OpenIdConnectSettings> = {},
): OidcIdentityProvider {
  const settings = oidcSettings(authority, overrides);
  return new OidcIdentityProvider(providerInfo(openIdConnect, settings), settings, {
    info: providerInfo(openIdConnect, settings),
    publicOrigin: PUBLIC_ORIGIN,
    environment: 'test',
    timeoutMs,
    logger,
    clock: new SystemClock(),
    sessionStore: new MemorySessionStore({ maxEntries: 10, clock: new FixedClock() }),
    replayRecords: new MemorySessionStore({ maxEntries: 10, clock: new FixedClock() }),
    rootDir: process.cwd(),
    authnContextMethods: BUILT_IN_AUTHN_CONTEXT_METHODS,
  });
}

async function expectFailure(promise: Promise<unknown>, code: string): Promise<GatehouseError> {
  try {
    await promise;
  } catch (err) {
    seenErrors.push(err);
    expect(err).to.be.instanceOf(GatehouseError);
    expect((err as GatehouseError).code).to.equal(code);
    return err as GatehouseError;
  }
  expect.fail(`expected ${code}, but it succeeded`);
}

function remember(callback: URL): URL {
  const code = callback.searchParams.get('code');
  if (code) issuedCodes.push(code);
  return callback;
}

function without(secrets: FlowSecrets, name: string, value?: string): FlowSecrets {
  const copy: Record<string, string> = { ...secrets };
  if (value === undefined) delete copy[name];
  else copy[name] = value;
  return copy;
}

describe('OidcIdentityProvider against a real OpenID provider (oidc-provider)', () => {
  let idp: DemoIdentityProvider;
  let provider: OidcIdentityProvider;

  before(async () => {
    idp = await startDemoIdentityProvider({
      clients: [
        {
          clientId: CLIENT_ID,
          clientSecret: SENTINEL_SECRET,
          redirectUris: [REDIRECT_URI],
          postLogoutRedirectUris: [POST_LOGOUT_REDIRECT_URI],
        },
      ],
      accessTokenTtlSeconds: 60,
    });
    provider = oidcProvider(idp.issuer, 5000);
  });

  after(async () => {
    await idp.close();
  });

  async function signIn(login: 'admin' | 'user'): Promise<{ start: ChallengeStart; callback: URL }> {
    const start = await provider.beginChallenge();
    const callback = remember(await driveOidcLogin(start.redirectUrl, login, new CookieJar()));
    return { start, callback };
  }

  it('signs the administrator in with sub, name, email, roles and permissions', async () => {
    const { start, callback } = await signIn('admin');
    const identity = await provider.completeCallback(asMessage(callback), start.secrets);

    expect(identity.claims).to.include({
      sub: 'admin',
      name: 'Ada Admin',
      email: 'ada@example.test',
      iss: idp.issuer,
      aud: CLIENT_ID,
    });
    expect(identity.claims['roles']).to.deep.equal(['Administrator']);
    expect(identity.claims['permissions']).to.deep.equal(['application.manage']);
    const tokens = readSessionTokens(identity.session?.record);
    expect(tokens?.accessToken).to.be.a('string').that.is.not.empty;
    expect(tokens?.idToken).to.be.a('string').that.is.not.empty;
    expect(tokens?.refreshToken).to.be.a('string').that.is.not.empty;
    expect(tokens?.expiresAt).to.be.greaterThan(Date.now());
    // Refreshed when the access token expires: a refresh token was issued.
    expect(identity.session?.refreshAt).to.equal(tokens?.expiresAt);
  });

  it('signs the plain user in without roles or permissions', async () => {
    const { start, callback } = await signIn('user');
    const { claims } = await provider.completeCallback(asMessage(callback), start.secrets);

    expect(claims).to.include({ sub: 'user', name: 'Uma User', email: 'uma@example.test' });
    expect(claims['roles']).to.deep.equal([]);
    expect(claims['permissions']).to.deep.equal([]);
  });

  it('sends PKCE S256, state and nonce in the authorization request (in the URL when requests are not pushed)', async () => {
    const provider = oidcProvider(idp.issuer, 5000, { UsePushedAuthorization: false });
    const start = await provider.beginChallenge();
    const url = new URL(start.redirectUrl);
    const { state, nonce, codeVerifier } = start.secrets;

    expect(`${url.origin}${url.pathname}`).to.equal(`${idp.issuer}/auth`);
    expect(url.searchParams.get('response_type')).to.equal('code');
    expect(url.searchParams.get('client_id')).to.equal(CLIENT_ID);
    expect(url.searchParams.get('redirect_uri')).to.equal(REDIRECT_URI);
    expect(url.searchParams.get('scope')).to.equal('openid profile email');
    expect(url.searchParams.get('state')).to.equal(start.correlation).and.equal(state);
    expect(url.searchParams.get('nonce')).to.be.a('string').and.equal(nonce);
    expect(url.searchParams.get('code_challenge_method')).to.equal('S256');
    expect(codeVerifier).to.match(/^[A-Za-z0-9_-]{43,128}$/);
    expect(url.searchParams.get('code_challenge')).to.equal(
      createHash('sha256')
        .update(codeVerifier ?? '')
        .digest('base64url'),
    );
    expect(url.searchParams.has('code_verifier')).to.equal(false);
    expect(url.searchParams.has('client_secret')).to.equal(false);
    // Every flow gets its own values.
    const other = await provider.beginChallenge();
    expect(other.secrets['state']).to.not.equal(state);
    expect(other.secrets['nonce']).to.not.equal(nonce);
    expect(other.secrets['codeVerifier']).to.not.equal(codeVerifier);
  });

  it('refreshes the tokens with the refresh token', async () => {
    const { start, callback } = await signIn('admin');
    const { session } = await provider.completeCallback(asMessage(callback), start.secrets);
    const tokens = readSessionTokens(session?.record) ?? expect.fail('no tokens');

    const renewed = await provider.refreshSession(session?.record ?? {});
    const refreshed = readSessionTokens(renewed.record) ?? expect.fail('no refreshed tokens');

    expect(renewed.refreshAt).to.equal(refreshed.expiresAt);
    expect(refreshed.accessToken).to.be.a('string').and.not.equal(tokens.accessToken);
    expect(refreshed.refreshToken).to.be.a('string').that.is.not.empty;
    expect(refreshed.idToken).to.be.a('string').that.is.not.empty;
    expect(refreshed.expiresAt).to.be.greaterThan(Date.now());
  });

  it('builds the end-session URL with id_token_hint and post_logout_redirect_uri, which the provider honours', async () => {
    const jar = new CookieJar();
    const start = await provider.beginChallenge();
    const callback = remember(await driveOidcLogin(start.redirectUrl, 'user', jar));
    const { session } = await provider.completeCallback(asMessage(callback), start.secrets);
    const tokens = readSessionTokens(session?.record);

    const signOut = new URL((await provider.signOutUrl(session?.record)) ?? expect.fail('no sign-out URL'));

    expect(`${signOut.origin}${signOut.pathname}`).to.equal(`${idp.issuer}/session/end`);
    expect(signOut.searchParams.get('id_token_hint')).to.equal(tokens?.idToken);
    expect(signOut.searchParams.get('post_logout_redirect_uri')).to.equal(POST_LOGOUT_REDIRECT_URI);
    // In the browser's provider session: confirm the logout, and it sends us back.
    const page = await (await jar.fetch(signOut)).text();
    const form =
      /<form[^>]*action="([^"]+)"[\s\S]*?name="xsrf" value="([^"]+)"/.exec(page) ?? expect.fail('no logout form');
    const confirmed = await jar.fetch(form[1] ?? '', {
      method: 'POST',
      body: new URLSearchParams({ xsrf: form[2] ?? '', logout: 'yes' }),
    });
    expect(confirmed.status).to.be.within(300, 399);
    expect(confirmed.headers.get('location')).to.equal(POST_LOGOUT_REDIRECT_URI);
  });

  it('offers no end-session URL when SignOutAtProvider is false', async () => {
    const quiet = oidcProvider(idp.issuer, 5000, { SignOutAtProvider: false });
    expect(await quiet.signOutUrl({ accessToken: 'a', idToken: 'b' })).to.equal(undefined);
  });

  it('refuses a replayed authorization code', async () => {
    const { start, callback } = await signIn('admin');
    await provider.completeCallback(asMessage(callback), start.secrets);

    await expectFailure(provider.completeCallback(asMessage(callback), start.secrets), 'idp.token_exchange_failed');
  });

  it('reports access_denied (the person cancelled) as idp.sign_in_cancelled, and another error by its OAuth code only', async () => {
    const start = await provider.beginChallenge();
    const callback = await driveOidcLogin(start.redirectUrl, 'user', new CookieJar(), { deny: true });
    expect(callback.searchParams.get('error')).to.equal('access_denied');

    expect(provider.correlate(asMessage(callback))).to.equal(start.correlation);
    const cancelled = provider.reportedError(asMessage(callback));
    expect(cancelled?.code).to.equal('idp.sign_in_cancelled');
    expect(cancelled?.message).to.not.include(callback.searchParams.get('error_description') ?? 'End-User aborted');

    callback.searchParams.set('error', 'server_error');
    const err = provider.reportedError(asMessage(callback));
    expect(err?.code).to.equal('idp.provider_error');
    if (!err) return;
    expect(err.message).to.include('server_error');
    expect(err.message).to.not.include(callback.searchParams.get('error_description') ?? 'End-User aborted');
  });

  it('reports the provider as up, but not required for readiness', async () => {
    expect(provider.healthCheck.name).to.equal('identityProvider:OpenIdConnect');
    expect(provider.healthCheck.required).to.equal(false);
    expect(await provider.healthCheck.check()).to.equal('up');
  });

  it('describes itself from its settings', () => {
    expect(provider.info).to.deep.equal({
      key: 'OpenIdConnect',
      kind: 'OpenIdConnect',
      scheme: 'OpenIdConnect',
      displayName: 'OpenID Connect',
      callbackPath: '/signin-oidc',
    });
    expect(provider.logoutEndpoints).to.deep.equal([
      { path: '/backchannel-logout-oidc', messageMethods: ['POST'], maxBodyBytes: 16 * 1024, channel: 'back' },
      {
        path: '/frontchannel-logout-oidc',
        messageMethods: ['GET'],
        maxBodyBytes: 0,
        channel: 'frame',
        framedBy: new URL(idp.issuer).origin,
      },
    ]);
  });
});

describe('OidcIdentityProvider against a misbehaving OpenID provider', () => {
  const timeoutMs = 500;
  let op: MisbehavingProvider;
  let provider: OidcIdentityProvider;

  before(async () => {
    op = await startMisbehavingOidcProvider({
      clientId: CLIENT_ID,
      clientSecret: SENTINEL_SECRET,
      redirectUri: REDIRECT_URI,
      errorDescription: SENTINEL_DESCRIPTION,
    });
    provider = oidcProvider(op.issuer, timeoutMs);
  });

  beforeEach(() => op.reset());

  after(async () => {
    await op.close();
  });

  /** Begins a flow and follows the provider's immediate redirect back. */
  async function authorized(): Promise<{ start: ChallengeStart; callback: URL }> {
    const start = await provider.beginChallenge();
    const response = await fetch(start.redirectUrl, { redirect: 'manual' });
    expect(response.status).to.equal(302);
    const callback = remember(new URL(response.headers.get('location') ?? expect.fail('no Location')));
    expect(callback.searchParams.get('code')).to.be.a('string');
    return { start, callback };
  }

  it('completes a sign-in when it behaves (so each failure below is due to its one defect)', async () => {
    const { start, callback } = await authorized();
    const identity = await provider.completeCallback(asMessage(callback), start.secrets);

    expect(identity.claims).to.include({ sub: op.user.sub, name: op.user.name, email: op.user.email, iss: op.issuer });
    expect(op.requests.token).to.equal(1);
    expect(op.requests.userinfo).to.equal(1);
    expect(op.requests.jwks).to.be.at.most(1); // the JWKS is fetched for the signature check, then cached
  });

  for (const missing of ['state', 'nonce', 'codeVerifier']) {
    it(`refuses the callback without a ${missing} before any token request`, async () => {
      const { start, callback } = await authorized();

      await expectFailure(
        provider.completeCallback(asMessage(callback), without(start.secrets, missing)),
        'idp.flow_missing',
      );
      await expectFailure(
        provider.completeCallback(asMessage(callback), without(start.secrets, missing, '')),
        'idp.flow_missing',
      );
      expect(op.requests.token).to.equal(0);
    });
  }

  it('refuses the callback with no flow secrets at all before any token request', async () => {
    const { callback } = await authorized();

    await expectFailure(provider.completeCallback(asMessage(callback), {}), 'idp.flow_missing');
    expect(op.requests.token).to.equal(0);
  });

  it("refuses a callback whose state is not the flow's", async () => {
    const { start, callback } = await authorized();
    const other = await provider.beginChallenge();

    await expectFailure(provider.completeCallback(asMessage(callback), other.secrets), 'idp.state_mismatch');
    const noState = new URL(callback);
    noState.searchParams.delete('state');
    await expectFailure(provider.completeCallback(asMessage(noState), start.secrets), 'idp.state_mismatch');
    const twoStates = new URL(callback);
    twoStates.searchParams.append('state', start.correlation);
    await expectFailure(provider.completeCallback(asMessage(twoStates), start.secrets), 'idp.state_mismatch');
    expect(op.requests.token).to.equal(0);
  });

  it('refuses a response naming another issuer (RFC 9207) before any token request', async () => {
    const { start, callback } = await authorized();
    callback.searchParams.set('iss', 'https://attacker.example');

    await expectFailure(provider.completeCallback(asMessage(callback), start.secrets), 'idp.issuer_mismatch');
    expect(op.requests.token).to.equal(0);
  });

  it('reports an OAuth error from the token endpoint without its description', async () => {
    const { start, callback } = await authorized();
    op.tokenBehavior = 'oauth-error';

    const err = await expectFailure(
      provider.completeCallback(asMessage(callback), start.secrets),
      'idp.token_exchange_failed',
    );
    expect(err.message).to.include('invalid_grant').and.not.include(SENTINEL_DESCRIPTION);
    expect(op.requests.token).to.equal(1);
  });

  const defects: IdTokenDefect[] = [
    'wrong-issuer',
    'wrong-audience',
    'wrong-nonce',
    'bad-signature',
    'alg-none',
    'expired',
  ];
  for (const defect of defects) {
    it(`refuses an ID token with ${defect}`, async () => {
      const { start, callback } = await authorized();
      op.tokenBehavior = defect;

      await expectFailure(provider.completeCallback(asMessage(callback), start.secrets), 'idp.id_token_invalid');
      expect(op.requests.token).to.equal(1);
      expect(op.requests.userinfo).to.equal(0);
    });
  }

  it('gives up on a hanging token endpoint within the time-out', async () => {
    const { start, callback } = await authorized();
    op.tokenBehavior = 'hang';

    const started = performance.now();
    await expectFailure(provider.completeCallback(asMessage(callback), start.secrets), 'idp.timeout');
    expect(performance.now() - started).to.be.lessThan(timeoutMs + 500);
    expect(op.requests.token).to.equal(1);
  });

  it('gives up on hanging discovery within the time-out, and tries again on the next call', async () => {
    const fresh = oidcProvider(op.issuer, timeoutMs);
    op.hanging.add('discovery');

    const started = performance.now();
    await expectFailure(fresh.beginChallenge(), 'idp.timeout');
    expect(performance.now() - started).to.be.lessThan(timeoutMs + 500);
    expect(await fresh.healthCheck.check()).to.equal('down');

    op.hanging.clear();
    expect(await fresh.healthCheck.check()).to.equal('up');
    const start = await fresh.beginChallenge();
    expect(start.redirectUrl).to.match(new RegExp(`^${op.issuer}/authorize\\?`));
  });

  it('gives up on a hanging JWKS endpoint within the time-out', async () => {
    const fresh = oidcProvider(op.issuer, timeoutMs);
    const start = await fresh.beginChallenge();
    const response = await fetch(start.redirectUrl, { redirect: 'manual' });
    const callback = remember(new URL(response.headers.get('location') ?? expect.fail('no Location')));
    op.hanging.add('jwks');

    await expectFailure(fresh.completeCallback(asMessage(callback), start.secrets), 'idp.timeout');
  });

  it('reports a provider that is down as unreachable', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const down = oidcProvider(`http://127.0.0.1:${closedPort}`, timeoutMs);

    await expectFailure(down.beginChallenge(), 'idp.unreachable');
    expect(await down.healthCheck.check()).to.equal('down');
    // Local sign-out still works: the provider's logout is simply skipped.
    expect(await down.signOutUrl({ accessToken: 'a', idToken: 'b' })).to.equal(undefined);
  });
});

describe('OidcIdentityProvider secrecy', () => {
  it('never puts the client secret, an authorization code or a provider description in logs or errors', () => {
    // The suites above must have produced material for this check to mean anything.
    expect(issuedCodes.length).to.be.greaterThan(10);
    expect(seenErrors.length).to.be.greaterThan(10);
    expect(logger.lines.length).to.be.greaterThan(10);

    const logged = JSON.stringify(logger.lines);
    const errors = seenErrors
      .map((err) => `${String(err)}\n${inspect(err, { depth: null, showHidden: true })}`)
      .join('\n');
    for (const text of [logged, errors]) {
      expect(text).to.not.include(SENTINEL_SECRET);
      expect(text).to.not.include(Buffer.from(`${CLIENT_ID}:${SENTINEL_SECRET}`).toString('base64'));
      expect(text).to.not.include(SENTINEL_DESCRIPTION);
      for (const code of issuedCodes) expect(text).to.not.include(code);
    }
    // What is logged is the step and the codes, which is what an operator searches for:
    // a warning, but for a person's Cancel (access_denied), an outcome logged at info.
    expect(
      logger.lines.every(
        (line) =>
          line.level === ('code' in line.fields && line.fields.code === 'idp.sign_in_cancelled' ? 'info' : 'warn') &&
          'code' in line.fields &&
          'stage' in line.fields,
      ),
    ).to.equal(true);
  });
});
