/**
 * A SAML 2.0 identity provider on loopback, for `npm run demo` and the browser tests.
 * Development only: in-memory state, a login form that takes any password for the two
 * demo users, responses written from templates and signed with xml-crypto (the Assertion
 * and the Response, RSA-SHA256), a signing key made at start, the assertion encrypted for a
 * service provider registered with an encryption certificate. Nothing in src/ imports it.
 *
 * It serves its metadata at /metadata, takes AuthnRequests with the HTTP-Redirect binding
 * at /sso, and answers the service providers it was started with, and any other on this
 * machine whose entity ID is the URL of its own metadata (a Gatehouse of your own, with
 * EntityId set to PublicOrigin + /Saml2/Acs: service-provider-from-metadata.ts), with a page
 * that POSTs the response to their Assertion Consumer Service (the HTTP-POST binding). Its
 * pages have the demo's look (demo-page.ts). Its home page, /,
 * is a portal: it starts IdP-initiated sign-ins (an unsolicited response, no InResponseTo,
 * RelayState "/"), as the app tiles of Okta, Entra ID or ADFS do.
 *
 * Single logout (SAML Profiles 4.4), HTTP-Redirect both ways, every message signed over the
 * query: /logout signs the browser out here and sends a LogoutRequest to the service
 * provider it signed in to (which ends its session and answers at /slo); /slo takes a
 * service provider's LogoutRequest (its signature checked with the certificate it was
 * registered with), ends the session here and answers with a LogoutResponse.
 */
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { breakableUrl, demoPage, escapeHtml } from './demo-page.js';
import { DEMO_USERS, userWithEmail, type DemoUser, type DemoUsers } from './demo-users.js';
import {
  identityProviderMetadataXml,
  readRedirectedAuthnRequest,
  type ReceivedAuthnRequest,
} from './saml/authn-request.js';
import { encryptAssertion } from './saml/assertion-encryption.js';
import { logoutRequestXml, logoutResponseXml, redirectUrl } from './saml/logout-messages.js';
import { readRedirectedMessage } from './saml/authn-request.js';
import { assertionXml, encodeForPost, newSamlId, responseXml, signElement } from './saml/saml-response.js';
import { serviceProviderFromMetadata } from './saml/service-provider-from-metadata.js';
import { makeSigningCredential, type SigningCredential } from './saml/signing-credential.js';

export interface DemoServiceProvider {
  entityId: string;
  acsUrl: string;
  /**
   * The service provider's encryption certificate (PEM), as its metadata publishes it: when
   * set, assertions to it are encrypted (AES-256-GCM, RSA-OAEP), after being signed.
   */
  encryptionCertificatePem?: string;
  /** Its single logout URL and signing certificate (PEM), when it does single logout. */
  singleLogoutUrl?: string;
  signingCertificatePem?: string;
}

/** A browser's sign-in here: who, at which service provider, under which SessionIndex. */
interface IdpSession {
  login: string;
  serviceProvider: DemoServiceProvider;
  sessionIndex: string;
}

const SESSION_COOKIE = 'demo-saml-idp-session';

export interface DemoSamlIdentityProviderOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Default 127.0.0.2: another site than an app on 127.0.0.1, so the ACS POST is cross-site as in real life. */
  host?: string;
  serviceProviders: DemoServiceProvider[];
  /** Serve https with this certificate (the production-posture browser test); plain http otherwise. */
  tls?: SigningCredential;
  /** The people who can sign in here, by login; default the two demo users (`admin`, `user`). */
  users?: DemoUsers;
  /** What its pages call it (default "Demo SAML identity provider"): an organization's provider says whose it is. */
  name?: string;
}

export interface DemoSamlIdentityProvider {
  metadataUrl: string;
  /** The portal page that starts IdP-initiated sign-ins. */
  portalUrl: string;
  entityId: string;
  close(): Promise<void>;
}

/** The attributes released for a demo user: claim URIs, the `urn:oid` mail, and permissions by a plain name (mapped in the demo's settings). */
function attributesOf(user: DemoUser): Record<string, string[]> {
  return {
    'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name': [user.name],
    'urn:oid:0.9.2342.19200300.100.1.3': [user.email],
    'http://schemas.microsoft.com/ws/2008/06/identity/claims/role': [...user.roles],
    permissions: [...user.permissions],
  };
}

export async function startDemoSamlIdentityProvider(
  options: DemoSamlIdentityProviderOptions,
): Promise<DemoSamlIdentityProvider> {
  const host = options.host ?? '127.0.0.2';
  const users: DemoUsers = options.users ?? DEMO_USERS;
  const name = options.name ?? 'Demo SAML identity provider';
  const userOf = (login: string | null): DemoUser | undefined =>
    login !== null && Object.hasOwn(users, login) ? users[login] : undefined;
  const logins = Object.keys(users).join(', ');
  const page = (res: ServerResponse, title: string, content: string, status = 200, autoSubmit = false) =>
    pageOf(name, res, title, content, status, autoSubmit);
  const signing = makeSigningCredential({ commonName: 'demo-saml-idp' });
  const pending = new Map<string, ReceivedAuthnRequest>();
  const sessions = new Map<string, IdpSession>();
  /** A session here, for single logout: the service provider signed in to, and the SessionIndex it was given. */
  const startSession = (
    res: ServerResponse,
    login: string,
    serviceProvider: DemoServiceProvider | undefined,
  ): string => {
    const sessionIndex = newSamlId();
    const sessionKey = randomBytes(16).toString('hex');
    if (serviceProvider) sessions.set(sessionKey, { login, serviceProvider, sessionIndex });
    res.setHeader('set-cookie', `${SESSION_COOKIE}=${sessionKey}; Path=/; HttpOnly; SameSite=Lax`);
    return sessionIndex;
  };
  let origin = '';
  /** Service providers that introduced themselves by their metadata URL, by entity ID (read again at each AuthnRequest). */
  const byMetadata = new Map<string, DemoServiceProvider>();
  const serviceProviders = () => [...options.serviceProviders, ...byMetadata.values()];
  const serviceProviderNamed = (entityId: string | null | undefined) =>
    serviceProviders().find((sp) => sp.entityId === entityId);
  const serviceProviderOf = (request: ReceivedAuthnRequest) =>
    serviceProviders().find((sp) => sp.entityId === request.issuer && sp.acsUrl === request.acsUrl);
  /** A configured service provider, or one on this machine whose entity ID is its metadata URL (read now: keys change at restart). */
  const knownServiceProvider = async (request: ReceivedAuthnRequest) => {
    if (!options.serviceProviders.some((sp) => sp.entityId === request.issuer)) {
      const described = await serviceProviderFromMetadata(request.issuer);
      if (described) byMetadata.set(described.entityId, described);
      else byMetadata.delete(request.issuer);
    }
    return serviceProviderOf(request);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', origin);
    const entityId = `${origin}/metadata`;
    if (req.method === 'GET' && url.pathname === '/metadata') {
      const xml = identityProviderMetadataXml(entityId, `${origin}/sso`, [signing.certificateBody], {
        singleLogoutUrl: `${origin}/slo`,
      });
      return void res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(xml);
    }
    if (req.method === 'GET' && url.pathname === '/sso') {
      const request = readRedirectedAuthnRequest(url);
      const known = await knownServiceProvider(request);
      if (!known) return void page(res, 'Unknown service provider', unknownServiceProvider(request), 400);
      const key = randomBytes(16).toString('hex');
      pending.set(key, request);
      // Every AuthnRequest gets the sign-in form (no single sign-on session is reused), so
      // ForceAuthn is always honored; a step-up (ForceAuthn, or a RequestedAuthnContext
      // asking for the two-factor class) makes the one-time code required, and says why.
      const hinted = userWithEmail(users, request.loginHint);
      const stepUp = asksForMfa(request.xml);
      const title = stepUp ? 'Confirm it is you' : 'Sign in';
      return void page(res, title, loginForm(key, request.issuer, users, hinted, stepUp));
    }
    if (req.method === 'POST' && url.pathname === '/sso/login') {
      const form = new URLSearchParams(await body(req));
      const request = pending.get(form.get('pending') ?? '');
      const user = userOf(form.get('login'));
      if (!request || !user) {
        return void page(res, 'Sign-in failed', `<p>Unknown user or expired request. Users: ${logins}.</p>`, 400);
      }
      const code = (form.get('otp') ?? '').trim();
      if ((code !== '' && !/^[0-9]{6}$/.test(code)) || (code === '' && asksForMfa(request.xml))) {
        const problem = code === '' ? 'The application asks for a second factor.' : 'A one-time code is 6 digits.';
        const again = loginForm(
          form.get('pending') ?? '',
          request.issuer,
          users,
          user,
          asksForMfa(request.xml),
          problem,
        );
        return void page(res, 'Sign in', again);
      }
      pending.delete(form.get('pending') ?? '');
      const serviceProvider = serviceProviderNamed(request.issuer);
      const sessionIndex = startSession(res, user.login, serviceProvider);
      const response = signedResponse(
        signing,
        entityId,
        user,
        { audience: request.issuer, acsUrl: request.acsUrl, ...serviceProviderOf(request) },
        request.id,
        sessionIndex,
        code === '' ? PASSWORD_CLASS : TWO_FACTOR_CLASS,
      );
      return void page(res, 'Signing you in', postForm(request.acsUrl, response, request.relayState), 200, true);
    }
    if (req.method === 'GET' && url.pathname === '/sso/cancel') {
      // Cancel: back to the application with a refusal (Responder/RequestDenied, SAML Core
      // 3.2.2.2), which needs no signature; Gatehouse shows its calm "Sign-in cancelled" page.
      const key = url.searchParams.get('pending') ?? '';
      const request = pending.get(key);
      if (!request)
        return void page(res, 'Sign-in failed', '<p>Expired request: start again from the application.</p>', 400);
      pending.delete(key);
      const refusal = responseXml(
        {
          issuer: entityId,
          destination: request.acsUrl,
          inResponseTo: request.id,
          statusCode: 'urn:oasis:names:tc:SAML:2.0:status:Responder',
          secondStatusCode: 'urn:oasis:names:tc:SAML:2.0:status:RequestDenied',
        },
        '',
      );
      return void page(
        res,
        'Cancelling',
        postForm(request.acsUrl, encodeForPost(refusal), request.relayState),
        200,
        true,
      );
    }
    if (req.method === 'GET' && url.pathname === '/') {
      return void page(res, 'Portal', portal(serviceProviders(), users));
    }
    if (req.method === 'POST' && url.pathname === '/portal/login') {
      const form = new URLSearchParams(await body(req));
      const serviceProvider = serviceProviders()[Number(form.get('sp'))];
      const user = userOf(form.get('login'));
      if (!serviceProvider || !user) {
        return void page(res, 'Sign-in failed', `<p>Unknown user or application. Users: ${logins}.</p>`, 400);
      }
      // SAML Profiles 4.1.5: unsolicited, so no InResponseTo; RelayState by convention names the page to land on.
      const response = signedResponse(
        signing,
        entityId,
        user,
        { ...serviceProvider, audience: serviceProvider.entityId, acsUrl: serviceProvider.acsUrl },
        null,
        startSession(res, user.login, serviceProvider),
      );
      return void page(res, 'Signing you in', postForm(serviceProvider.acsUrl, response, '/'), 200, true);
    }
    if (req.method === 'GET' && url.pathname === '/logout') {
      const session = sessions.get(cookieOf(req) ?? '');
      return void page(
        res,
        'Sign out',
        session
          ? `<p>Signed in here as <strong>${escapeHtml(userOf(session.login)?.name ?? session.login)}</strong> (<code>${escapeHtml(session.login)}</code>), at <code>${escapeHtml(session.serviceProvider.entityId)}</code>.</p>
<form method="post" action="/logout"><button type="submit">Sign out everywhere</button></form>
<p class="small">Signs you out here, then of the application too (SAML single logout).</p>`
          : '<p>Nobody is signed in here.</p>',
      );
    }
    if (req.method === 'POST' && url.pathname === '/logout') {
      const key = cookieOf(req) ?? '';
      const session = sessions.get(key);
      sessions.delete(key);
      const target = session?.serviceProvider;
      if (!session || !target?.singleLogoutUrl) return void page(res, 'Signed out', '<p>You are signed out here.</p>');
      // IdP-initiated single logout: a signed LogoutRequest, through the browser, to the service provider.
      const xml = logoutRequestXml({
        issuer: entityId,
        destination: target.singleLogoutUrl,
        nameId: session.login,
        nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
        sessionIndexes: [session.sessionIndex],
      });
      res.writeHead(302, {
        location: redirectUrl(target.singleLogoutUrl, 'SAMLRequest', xml, { credential: signing }),
      });
      return void res.end();
    }
    if (req.method === 'GET' && url.pathname === '/slo') {
      const message = readRedirectedMessage(url);
      if (message.field === 'SAMLResponse') {
        return void page(res, 'Signed out', '<p>You are signed out here and at the application.</p>');
      }
      const issuer = message.document.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'Issuer')[0];
      const serviceProvider = serviceProviderNamed(issuer?.textContent);
      if (
        !serviceProvider?.singleLogoutUrl ||
        !serviceProvider.signingCertificatePem ||
        !message.signatureValid(serviceProvider.signingCertificatePem)
      ) {
        return void page(
          res,
          'Sign-out refused',
          '<p>The LogoutRequest is unsigned, or comes from an unknown service provider.</p>',
          400,
        );
      }
      // SP-initiated single logout: end the session here, answer with a signed LogoutResponse.
      const key = cookieOf(req);
      if (key !== undefined) sessions.delete(key);
      const xml = logoutResponseXml({
        issuer: entityId,
        destination: serviceProvider.singleLogoutUrl,
        inResponseTo: message.document.getAttribute('ID') ?? '',
      });
      const location = redirectUrl(serviceProvider.singleLogoutUrl, 'SAMLResponse', xml, { credential: signing });
      res.writeHead(302, { location });
      return void res.end();
    }
    page(
      res,
      'Not found',
      '<p>This demo identity provider has no such page. Its portal is at <a href="/">/</a>.</p>',
      404,
    );
  };
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch(() => page(res, 'Bad request', '<p>This request could not be read.</p>', 400));
  };
  const server = options.tls
    ? createHttpsServer({ key: options.tls.privateKeyPem, cert: options.tls.certificatePem }, listener)
    : createHttpServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origin = `${options.tls ? 'https' : 'http'}://${host}:${port}`;
  return {
    metadataUrl: `${origin}/metadata`,
    portalUrl: `${origin}/`,
    entityId: `${origin}/metadata`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A Response and its Assertion, both signed, for `login` at `serviceProvider`, answering
 * `inResponseTo` (null: unsolicited); the assertion's ID is the session index single logout names.
 */
function signedResponse(
  signing: SigningCredential,
  entityId: string,
  user: DemoUser,
  serviceProvider: { audience: string; acsUrl: string; encryptionCertificatePem?: string },
  inResponseTo: string | null,
  sessionIndex: string,
  authnContextClassRef: string = PASSWORD_CLASS,
): string {
  const signedAssertion = signElement(
    assertionXml({
      assertionId: sessionIndex,
      issuer: entityId,
      nameId: user.login,
      nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
      audiences: [serviceProvider.audience],
      recipient: serviceProvider.acsUrl,
      inResponseTo,
      attributes: attributesOf(user),
      authnContextClassRef,
    }),
    'Assertion',
    { credential: signing },
  );
  // A service provider that published an encryption certificate gets its assertions encrypted to it.
  const { encryptionCertificatePem } = serviceProvider;
  const assertion = encryptionCertificatePem
    ? encryptAssertion(signedAssertion, {
        certificatePem: encryptionCertificatePem,
        recipient: serviceProvider.audience,
      })
    : signedAssertion;
  const response = signElement(
    responseXml({ issuer: entityId, destination: serviceProvider.acsUrl, inResponseTo }, assertion),
    'Response',
    { credential: signing },
  );
  return encodeForPost(response);
}

/** One form per known application: sign in at the identity provider, land signed in at the application. */
function portal(serviceProviders: DemoServiceProvider[], users: DemoUsers): string {
  return `<p>Sign in here and land signed in at an application, as the app tiles of Okta, Entra ID or AD FS do (IdP-initiated). ${usersNote(users)}</p>
${serviceProviders
  .map(
    (sp, index) => `<form method="post" action="/portal/login">
<h2><code>${escapeHtml(sp.entityId)}</code></h2>
<input type="hidden" name="sp" value="${index}">
<label>Login <input name="login" autocomplete="off"></label>
<label>Password <input name="password" type="password" placeholder="anything"></label>
<button type="submit">Sign in to this application (IdP-initiated)</button>
</form>`,
  )
  .join('\n')}`;
}

function cookieOf(req: IncomingMessage): string | undefined {
  const match = new RegExp(`(?:^|;\\s*)${SESSION_COOKIE}=([0-9a-f]+)`).exec(req.headers.cookie ?? '');
  return match?.[1];
}

/** The class of a password sign-in, and of one confirmed with a one-time code (as ADFS names it). */
const PASSWORD_CLASS = 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport';
const TWO_FACTOR_CLASS = 'http://schemas.microsoft.com/claims/multipleauthn';

/**
 * True when the AuthnRequest is a step-up: its RequestedAuthnContext names the two-factor
 * class, or it says ForceAuthn="true" (the person must sign in again: SAML has no way to
 * ask for an `amr` value, so the demo reads it as asking for the second factor too, as
 * Gatehouse's demo step-up of /Admin needs).
 */
function asksForMfa(requestXml: string): boolean {
  const requested = /<(?:\w+:)?RequestedAuthnContext[\s\S]*?<\/(?:\w+:)?RequestedAuthnContext>/.exec(requestXml);
  const forced = /<(?:\w+:)?AuthnRequest\b[^>]*\sForceAuthn="(?:true|1)"/.test(requestXml);
  return forced || (requested !== null && requested[0].includes(TWO_FACTOR_CLASS));
}

/** The sign-in form, filled in with the user whose address the AuthnRequest's Subject hinted at, if any. */
function loginForm(
  pendingKey: string,
  serviceProvider: string,
  users: DemoUsers,
  hinted: DemoUser | undefined,
  mfaAsked = false,
  problem?: string,
): string {
  const login = hinted ? ` value="${escapeHtml(hinted.login)}"` : ' autofocus';
  const why = mfaAsked
    ? '<p class="note">The application asks you to confirm it is you: the page you opened needs a recent sign-in with a second factor. Sign in again with your password and a one-time code.</p>\n'
    : '';
  return `${why}<p>Sign in to ${breakableUrl(serviceProvider)}. ${usersNote(users)}</p>
${problem ? `<p class="problem">${escapeHtml(problem)}</p>` : ''}<form method="post" action="/sso/login">
<input type="hidden" name="pending" value="${pendingKey}">
<label>Login <input name="login"${login} autocomplete="off"></label>
<label>Password <input name="password" type="password" placeholder="anything"${hinted ? ' autofocus' : ''}></label>
<label>${mfaAsked ? 'Confirm with a one-time code (required)' : 'Also confirm with a one-time code (optional)'} <input name="otp" inputmode="numeric" autocomplete="one-time-code" placeholder="any 6 digits"${mfaAsked ? ' required' : ''}></label>
<button type="submit">Sign in</button>
</form>
<p class="small"><a href="/sso/cancel?pending=${pendingKey}">Cancel</a></p>`;
}

function usersNote(people: DemoUsers): string {
  const users = Object.values(people)
    .map(
      (user) =>
        `<code>${user.login}</code> (${escapeHtml(user.name)}${user.roles.length > 0 ? `: ${escapeHtml(user.roles.join(', '))}` : ', no roles'})`,
    )
    .join(' or ');
  return `Sign in as ${users}, with any password.`;
}

/** Why an AuthnRequest was refused, and how a service provider of your own gets in. */
function unknownServiceProvider(request: ReceivedAuthnRequest): string {
  return `<p><code>${escapeHtml(request.issuer)}</code> is not a service provider this demo knows, or its metadata does not name the Assertion Consumer Service <code>${escapeHtml(request.acsUrl)}</code>.</p>
<p class="note">It signs in the demo's own Gatehouse, and any service provider on this machine whose entity ID is the URL of its metadata. For a Gatehouse of your own, set <code>EntityId</code> to its <code>PublicOrigin</code> followed by <code>/Saml2/Acs</code>, where it serves its metadata.</p>`;
}

/** SAML Bindings 3.5.4: a form the browser POSTs to the ACS, submitted at once. */
function postForm(acsUrl: string, samlResponse: string, relayState: string | undefined): string {
  const relay =
    relayState === undefined ? '' : `<input type="hidden" name="RelayState" value="${escapeHtml(relayState)}">`;
  return `<p>Taking you back to the application…</p>
<form method="post" action="${escapeHtml(acsUrl)}" id="saml-post">
  <input type="hidden" name="SAMLResponse" value="${samlResponse}">${relay}
  <noscript><button type="submit">Continue</button></noscript>
</form>`;
}

function pageOf(
  name: string,
  res: ServerResponse,
  title: string,
  content: string,
  status = 200,
  autoSubmit = false,
): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(
    demoPage({
      eyebrow: `${name} · development only`,
      title,
      body: content,
      ...(autoSubmit ? { bodyAttributes: `onload="document.getElementById('saml-post').submit()"` } : {}),
    }),
  );
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      data += chunk;
      if (data.length > 16 * 1024) reject(new Error('too large'));
    });
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}
