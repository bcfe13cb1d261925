import { expect } from 'chai';
import { readRedirectedAuthnRequest, type ReceivedAuthnRequest } from '../../scripts/saml/authn-request.js';
import type { SigningCredential } from '../../scripts/saml/signing-credential.js';
import type { Gatehouse } from '../../src/bootstrap/gatehouse.js';
import { CookieJar } from './drive-oidc-login.js';
import { freePort } from '../../scripts/free-port.js';
import { startWithConnections } from './connection-app.js';
import { startGatehouse, type StartOptions } from './start-gatehouse.js';
import { SamlTestIdentityProvider, type AnswerOptions } from './saml-identity-provider.js';

export const SP_ENTITY_ID = 'https://gatehouse.test/saml';

/** The settings of a service-provider encryption key pair in `slot` ('' or '2'). */
export function encryptionSettings(pair: SigningCredential, slot: '' | '2' = ''): Record<string, string> {
  const saml = 'ProjectTemplate__Authentication__Providers__Saml2__';
  return {
    [`${saml}EncryptionCertificate${slot}`]: pair.certificatePem,
    [`${saml}EncryptionKey${slot}`]: pair.privateKeyPem,
  };
}

export interface SamlApp {
  url: string;
  acsUrl: string;
  gatehouse: Gatehouse;
  logs: string[];
  close(): Promise<void>;
}

/** Gatehouse with Saml2 enabled against `idp`, on a free loopback port (its PublicOrigin). */
export async function startSamlApp(
  idp: SamlTestIdentityProvider,
  env: Record<string, string> = {},
  options: Omit<StartOptions, 'port'> = {},
): Promise<SamlApp> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const app = await startGatehouse(
    {
      ProjectTemplate__Hosting__PublicOrigin: url,
      ProjectTemplate__Authentication__HttpTimeoutSeconds: '2',
      ProjectTemplate__Authentication__Providers__Saml2__Enabled: 'true',
      ProjectTemplate__Authentication__Providers__Saml2__EntityId: SP_ENTITY_ID,
      ProjectTemplate__Authentication__Providers__Saml2__MetadataUrl: idp.metadataUrl,
      ...env,
    },
    { ...options, port },
  );
  return { ...app, acsUrl: `${url}/Saml2/Acs` };
}

/** Gatehouse with one SAML2 connection, `name`, declared by `section`, on a free loopback port (its PublicOrigin). */
export async function startSamlConnectionApp(
  name: string,
  section: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<SamlApp> {
  const app = await startWithConnections(await freePort(), { [name]: section }, env);
  return { ...app, acsUrl: `${app.url}/connections/${name.toLowerCase()}/saml2/acs` };
}

/** The settings a service provider with single logout needs: its signing pair and the switch. */
export function singleLogoutSettings(
  sp: SigningCredential,
  extra: Record<string, string> = {},
): Record<string, string> {
  const saml = 'ProjectTemplate__Authentication__Providers__Saml2__';
  return {
    [`${saml}SigningCertificate`]: sp.certificatePem,
    [`${saml}SigningKey`]: sp.privateKeyPem,
    [`${saml}SingleLogout`]: 'true',
    ...extra,
  };
}

/** The test identity provider listing its single logout service, and Gatehouse with single logout (SP signing pair `sp`) against it. */
export async function startSingleLogoutApp(sp: SigningCredential) {
  const idp = await SamlTestIdentityProvider.start();
  idp.singleLogout = true;
  const app = await startSamlApp(idp, singleLogoutSettings(sp));
  const close = async () => {
    await app.close();
    await idp.close();
  };
  return { idp, app, sloUrl: `${app.url}/Saml2/Logout`, close };
}

/** A browser for SAML sign-ins: one cookie jar, redirects not followed. */
export class SamlBrowser {
  readonly jar = new CookieJar();

  /** Starts a challenge; returns the AuthnRequest as the identity provider receives it. */
  async challenge(app: { url: string }, returnUrl = '/'): Promise<ReceivedAuthnRequest> {
    const response = await this.jar.fetch(
      `${app.url}/External/Challenge?provider=Saml2&returnUrl=${encodeURIComponent(returnUrl)}`,
    );
    const location = response.headers.get('location');
    if (response.status !== 302 || !location) throw new Error(`challenge answered ${response.status}`);
    return readRedirectedAuthnRequest(location);
  }

  /** Delivers a form to the ACS as the page re-posted from our own site does: with this browser's cookies. */
  post(url: string, form: Record<string, string>): Promise<Response> {
    return this.jar.fetch(url, { method: 'POST', body: new URLSearchParams(form) });
  }

  get(url: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.jar.fetch(url, { headers });
  }

  sessionToken(origin: string): string | undefined {
    return /gatehouse\.sid=([^;]+)/.exec(this.jar.header(origin) ?? '')?.[1];
  }

  /** Challenge, answer (as `options` says) and delivery in one: the ACS's response. */
  async signIn(app: SamlApp, idp: SamlTestIdentityProvider, options: AnswerOptions = {}, returnUrl = '/') {
    const request = await this.challenge(app, returnUrl);
    return this.post(app.acsUrl, idp.answer(request, SP_ENTITY_ID, options));
  }
}

/** An error page with `status` naming `code` (the first 300 characters of the body explain a mismatch); its body. */
export async function expectCode(response: Response, status: number, code: string): Promise<string> {
  const body = await response.text();
  expect(response.status, body.slice(0, 300)).to.equal(status);
  expect(body).to.contain(`<code>${code}</code>`);
  return body;
}
