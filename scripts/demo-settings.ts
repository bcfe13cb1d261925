import { COOKIE_POSTURE } from './cookie-posture.js';

export interface DemoRegistration {
  /** Gatehouse's public origin (`http://127.0.0.1:<port>`). */
  appOrigin: string;
  /** The demo identity provider's issuer. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** What the login page offers: "Sign in with <displayName>". */
  displayName: string;
}

/**
 * A second client the demo's OpenID provider registers, for a Gatehouse of your own
 * (`npm start` with your settings, on `origin`: http://127.0.0.1:3001 when free and not the demo's own port, unless
 * DEMO_YOUR_APP_ORIGIN says otherwise): its redirect, post-logout and back-channel logout
 * URIs are registered there. The id and secret are fixed and public on purpose (docs/demo.md,
 * "Your own configuration against the demo providers"): the provider runs only under
 * `npm run demo`, on loopback, and signs in only the two demo people.
 */
export const YOUR_APP_CLIENT = { clientId: 'your-app', clientSecret: 'your-app-demo-secret' } as const;

export function yourAppClient(origin: string) {
  return {
    ...YOUR_APP_CLIENT,
    redirectUris: [`${origin}${DEMO_CALLBACK_PATH}`],
    postLogoutRedirectUris: [`${origin}/`],
    backchannelLogoutUri: `${origin}${DEMO_BACKCHANNEL_LOGOUT_PATH}`,
  };
}

/** Sign-ins one client may start per 15 minutes in the demo: no limit anyone clicking meets. */
export const DEMO_SIGN_INS_PER_CLIENT = 1_000_000;

/** The callback path the demo registers at its provider, so it is pinned here too. */
export const DEMO_CALLBACK_PATH = '/signin-oidc';
/** The back-channel logout path the demo registers at its provider (`backchannel_logout_uri`), pinned likewise. */
export const DEMO_BACKCHANNEL_LOGOUT_PATH = '/backchannel-logout-oidc';
/** The front-channel logout path the demo registers at its provider (`frontchannel_logout_uri`), pinned likewise. */
export const DEMO_FRONTCHANNEL_LOGOUT_PATH = '/frontchannel-logout-oidc';

/**
 * The configuration `npm run demo` gives Gatehouse, and the browser suite, which composes
 * the demo the same way: Gatehouse's built-in cookie posture whatever the project
 * committed, and the OpenID Connect provider pointed at the demo identity provider.
 * Environment variables, so they win over config/appsettings.json and .env: the demo works
 * the same in every project generated from Gatehouse, whichever `--authProvider` it chose.
 */
export function demoSettings(demo: DemoRegistration): Record<string, string> {
  const oidc = 'ProjectTemplate__Authentication__Providers__OpenIdConnect__';
  return {
    ...COOKIE_POSTURE,
    ProjectTemplate__Hosting__PublicOrigin: demo.appOrigin,
    ProjectTemplate__Hosting__ShutdownDrainSeconds: '0',
    // The demo exists to be clicked through, cancels and all: the per-client limit on
    // sign-ins started (30 per 15 minutes) is lifted here, and its banner says so.
    ProjectTemplate__Session__PendingSignInsPerClient: String(DEMO_SIGN_INS_PER_CLIENT),
    [`${oidc}Enabled`]: 'true',
    [`${oidc}DisplayName`]: demo.displayName,
    [`${oidc}Authority`]: demo.issuer,
    [`${oidc}ClientId`]: demo.clientId,
    [`${oidc}ClientSecret`]: demo.clientSecret,
    [`${oidc}CallbackPath`]: DEMO_CALLBACK_PATH,
    [`${oidc}BackchannelLogoutPath`]: DEMO_BACKCHANNEL_LOGOUT_PATH,
    [`${oidc}FrontchannelLogoutPath`]: DEMO_FRONTCHANNEL_LOGOUT_PATH,
    // Step-up (docs/step-up.md): /Admin wants a sign-in with a second factor from the last
    // 10 minutes; the demo providers' "Also confirm with a one-time code" gives one.
    [`${DEMO_ADMIN_STEP_UP}Policy`]: 'application.Role.Administrator',
    [`${DEMO_ADMIN_STEP_UP}MaxAuthenticationAgeSeconds`]: '600',
    [`${DEMO_ADMIN_STEP_UP}AuthenticationMethods__0`]: 'mfa',
  };
}

/** The demo's step-up section of the administrator policy, spelled as every shell passes it on (docs/step-up.md). */
const DEMO_ADMIN_STEP_UP = 'ProjectTemplate__Authorization__StepUp__AdminPages__';

/** The SAML identity provider the demo registers Gatehouse at, and what the login page calls it. */
export interface DemoSamlRegistration {
  appOrigin: string;
  /** The demo SAML identity provider's metadata URL. */
  metadataUrl: string;
  displayName: string;
  /** Gatehouse's encryption key pair (PEM) when the demo encrypts assertions (`DEMO_SAML_ENCRYPT=1`). */
  encryption?: { certificatePem: string; privateKeyPem: string };
  /** Gatehouse's SAML signing pair (made at demo start): it signs AuthnRequests and single-logout messages. */
  signing: { certificatePem: string; privateKeyPem: string };
}

/** The single logout path the demo registers at its SAML identity provider (the default). */
export const DEMO_SAML_LOGOUT_PATH = '/Saml2/Logout';

/** What the demo SAML identity provider knows of Gatehouse: its entity ID, ACS, single logout URL, signing certificate and encryption certificate (when the demo encrypts). */
export function demoSamlServiceProvider(
  appOrigin: string,
  signing: { certificatePem: string },
  encryption?: { certificatePem: string },
) {
  return {
    encryptionCertificatePem: encryption?.certificatePem,
    entityId: demoSamlEntityId(appOrigin),
    acsUrl: `${appOrigin}/Saml2/Acs`,
    singleLogoutUrl: `${appOrigin}${DEMO_SAML_LOGOUT_PATH}`,
    signingCertificatePem: signing.certificatePem,
  };
}

/** The entity ID the demo gives Gatehouse: its ModulePath, where it serves its own SAML metadata. */
export function demoSamlEntityId(appOrigin: string): string {
  return `${appOrigin}/Saml2/Acs`;
}

/**
 * The Saml2 provider pointed at the demo SAML identity provider, which releases the demo
 * users' permissions under a plain attribute name: a claims-transformation mapping turns it
 * into `application:permission`, as an operator would for a real identity provider. With
 * `encryption`, Gatehouse gets that key pair and requires encrypted assertions.
 * IdP-initiated sign-in is allowed here, for the demo only (its portal page starts one):
 * the default is off, and production warns when it is on. It signs its AuthnRequests and
 * does single logout with the pair made at demo start.
 */
export function demoSamlSettings(demo: DemoSamlRegistration): Record<string, string> {
  const saml = 'ProjectTemplate__Authentication__Providers__Saml2__';
  return {
    [`${saml}Enabled`]: 'true',
    [`${saml}DisplayName`]: demo.displayName,
    [`${saml}EntityId`]: demoSamlEntityId(demo.appOrigin),
    [`${saml}MetadataUrl`]: demo.metadataUrl,
    [`${saml}ModulePath`]: '/Saml2/Acs',
    [`${saml}AllowIdpInitiated`]: 'true',
    [`${saml}SigningCertificate`]: demo.signing.certificatePem,
    [`${saml}SigningKey`]: demo.signing.privateKeyPem,
    [`${saml}SignAuthnRequests`]: 'true',
    [`${saml}SingleLogout`]: 'true',
    [`${saml}SingleLogoutPath`]: DEMO_SAML_LOGOUT_PATH,
    ProjectTemplate__Authentication__ClaimsTransformation__Mappings__Saml2__permissions: 'application:permission',
    // Encrypting, the demo requires it, so that a sign-in shows the decryption at work.
    ...(demo.encryption
      ? {
          [`${saml}EncryptionCertificate`]: demo.encryption.certificatePem,
          [`${saml}EncryptionKey`]: demo.encryption.privateKeyPem,
          [`${saml}RequireEncryptedAssertions`]: 'true',
        }
      : {}),
  };
}

/** What the demo's administration API is set up with: all of it made at demo start. */
export interface DemoAdministration {
  /** The SHA-256 of the API key the terminal prints (newApiKey): the settings hold only this. */
  apiKeyHash: string;
  /** A fresh key for `Administration:EncryptionKeys`: the API's secrets are sealed with it. */
  encryptionKey: string;
  /** The demo DNS server (`127.0.0.1:<port>`, scripts/demo-dns.ts): the domain checks ask it. */
  dnsServer: string;
}

/**
 * The administration API on, over the connection folder the demo already writes
 * (`ConnectionsDirectory`): one API key, one encryption key, the demo's own DNS server for
 * the domains' TXT records, and pre-flights allowed to reach loopback, where every demo
 * provider listens (a deployment keeps `AllowPrivateNetworks` false). The permission that
 * manages connections is `application.manage`, which the demo's `admin` holds, so a
 * signed-in admin may call the API too; a deployment's default is `connections.manage`.
 */
export function demoAdministrationSettings(demo: DemoAdministration): Record<string, string> {
  const admin = 'ProjectTemplate__Administration__';
  return {
    [`${admin}Enabled`]: 'true',
    [`${admin}ManagePermission`]: 'application.manage',
    [`${admin}ApiKeys__0`]: demo.apiKeyHash,
    [`${admin}EncryptionKeys__0`]: demo.encryptionKey,
    [`${admin}AllowPrivateNetworks`]: 'true',
    [`${admin}DnsServers__0`]: demo.dnsServer,
  };
}
