import { readRedirectedAuthnRequest, type ReceivedAuthnRequest } from '../../scripts/saml/authn-request.js';
import type { SigningCredential } from '../../scripts/saml/signing-credential.js';
import { sessionStoreKey } from '../../src/adapters/koa/session/session-token.js';
import { readPrincipal } from '../../src/application/sign-in/stored-principal.js';
import type { Gatehouse } from '../../src/bootstrap/gatehouse.js';
import type { TestBrowser } from './oidc-app.js';
import { startGatehouse, type RunningGatehouse } from './start-gatehouse.js';
import type { SamlTestIdentityProvider } from './saml-identity-provider.js';

/** The environment-variable prefix of a configured connection's keys. */
export const connectionPrefix = (name: string) => `ProjectTemplate__Authentication__Connections__${name}__`;

/**
 * A connection's section as environment variables, the way an operator writes them
 * (arrays by index, objects by key): `{ Domains: ['a.test'] }` is `...__Domains__0=a.test`.
 */
export function connectionEnv(name: string, section: Readonly<Record<string, unknown>>): Record<string, string> {
  const env: Record<string, string> = {};
  const put = (key: string, value: unknown): void => {
    if (Array.isArray(value)) value.forEach((item, index) => put(`${key}__${index}`, item));
    else if (typeof value === 'object' && value !== null) {
      for (const [inner, item] of Object.entries(value)) put(`${key}__${inner}`, item);
    } else env[key] = String(value);
  };
  for (const [key, value] of Object.entries(section)) put(`${connectionPrefix(name)}${key}`, value);
  return env;
}

/**
 * A Gatehouse listening at `port` (its PublicOrigin, known beforehand by the identity
 * providers' redirect URIs) with these connections configured, provider calls timing out
 * after 2 s, and `env` over that.
 */
export function startWithConnections(
  port: number,
  connections: Readonly<Record<string, Record<string, unknown>>>,
  env: Record<string, string> = {},
): Promise<RunningGatehouse> {
  return startGatehouse(
    {
      ProjectTemplate__Hosting__PublicOrigin: `http://127.0.0.1:${port}`,
      ProjectTemplate__Authentication__HttpTimeoutSeconds: '2',
      ...Object.assign({}, ...Object.entries(connections).map(([name, section]) => connectionEnv(name, section))),
      ...env,
    },
    { port },
  );
}

/** The SAML attribute the built-in claims table reads the e-mail address from. */
export const EMAIL_ATTRIBUTE = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress';

/** The SP entity ID every SAML connection of these tests is known by at its identity provider. */
export const CONNECTION_SP_ENTITY_ID = 'https://gatehouse.test/connections';

/** A SAML connection's keys against a test identity provider: single logout when `signing` is given. */
export function samlConnection(
  organization: string,
  domains: readonly string[],
  idp: SamlTestIdentityProvider,
  options: { signing?: SigningCredential; encryption?: SigningCredential; extra?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return {
    Protocol: 'Saml2',
    Organization: organization,
    Domains: [...domains],
    EntityId: CONNECTION_SP_ENTITY_ID,
    MetadataUrl: idp.metadataUrl,
    ...(options.signing
      ? {
          SigningCertificate: options.signing.certificatePem,
          SigningKey: options.signing.privateKeyPem,
          SingleLogout: true,
        }
      : {}),
    ...(options.encryption
      ? { EncryptionCertificate: options.encryption.certificatePem, EncryptionKey: options.encryption.privateKeyPem }
      : {}),
    ...options.extra,
  };
}

/** An OpenID Connect connection's keys against a provider at `issuer`. */
export function oidcConnection(
  organization: string,
  domains: readonly string[],
  issuer: string,
  client: { clientId: string; clientSecret: string },
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    Protocol: 'OpenIdConnect',
    Organization: organization,
    Domains: [...domains],
    Authority: issuer,
    ClientId: client.clientId,
    ClientSecret: client.clientSecret,
    ...extra,
  };
}

/** Posts the login page's "Sign in with your work e-mail" form as a browser would (its token from the page). */
export async function discover(
  browser: TestBrowser,
  appUrl: string,
  email: string,
  returnUrl = '/api/app-info',
): Promise<Response> {
  const page = await browser.get(`${appUrl}/Account/Login?returnUrl=${encodeURIComponent(returnUrl)}`);
  const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  if (token === undefined) throw new Error('no e-mail form on the login page');
  return browser.post(`${appUrl}/External/Discover`, { _csrf: token, email, returnUrl }, { origin: appUrl });
}

/** Starts a connection's sign-in by its name; the redirect to its identity provider. */
export async function challenge(browser: TestBrowser, appUrl: string, name: string, returnUrl = '/'): Promise<string> {
  const response = await browser.get(
    `${appUrl}/External/Challenge?provider=${encodeURIComponent(name)}&returnUrl=${encodeURIComponent(returnUrl)}`,
  );
  const location = response.headers.get('location');
  if (response.status !== 302 || !location) throw new Error(`the challenge of ${name} answered ${response.status}`);
  return location;
}

/** A SAML connection's challenge, as its identity provider receives the AuthnRequest. */
export async function samlChallenge(browser: TestBrowser, appUrl: string, name: string): Promise<ReceivedAuthnRequest> {
  return readRedirectedAuthnRequest(await challenge(browser, appUrl, name));
}

/** The status of the sample route of `organization` for this browser: 200 for its members, 403 for others, 401 anonymous. */
export async function organizationRoute(browser: TestBrowser, appUrl: string, organization: string): Promise<number> {
  const response = await browser.get(`${appUrl}/api/organizations/${organization}/app-info`, {
    accept: 'application/json',
  });
  await response.body?.cancel();
  return response.status;
}

/** The claims of the browser's signed-in session, as the store holds them; undefined when it has none. */
export async function sessionClaims(
  gatehouse: Gatehouse,
  browser: TestBrowser,
  appUrl: string,
): Promise<Array<[type: string, value: string]> | undefined> {
  const token = browser.sessionToken(appUrl);
  if (token === undefined) return undefined;
  const session = await gatehouse.stores.sessions.get(sessionStoreKey(token));
  if (session === undefined) return undefined;
  const signIn = await gatehouse.stores.sessions.get(`signin:${String(session.signIn)}`);
  return readPrincipal(signIn?.principal)?.claims.map((claim) => [claim.type, claim.value]);
}

/** The audit events of a kind in an app's log, parsed. */
export function auditEvents(logs: readonly string[], type: string): Array<Record<string, unknown>> {
  return logs
    .filter((line) => line.includes('"audit":true') && line.includes(`"event":"${type}"`))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Polls `check` (every 100 ms) until it holds or `withinMs` passes; the time it took. */
export async function eventually(what: string, check: () => Promise<boolean>, withinMs = 5_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > withinMs) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
