/**
 * The two customer organizations of `npm run demo` and the browser suite, each with an
 * identity provider of its own: Acme signs in through a SAML identity provider, Globex
 * through an OpenID provider. Each listens on a loopback address of its own, another site
 * than the app (127.0.0.1) and than the deployment's own demo providers (127.0.0.1 and
 * 127.0.0.2), so Acme's POST to its Assertion Consumer Service is cross-site, as with a
 * real customer's. Gatehouse learns of them as an operator's provisioning job would tell
 * it (docs/connections.md): one `<Name>.json` file per connection in a folder
 * (`ConnectionsDirectory`), the secrets in files beside them. Development only: nothing in
 * src/ imports it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoIdentityProvider, type DemoIdentityProvider } from './demo-identity-provider.js';
import { startDemoSamlIdentityProvider, type DemoSamlIdentityProvider } from './demo-saml-identity-provider.js';
import { ACME_USERS, GLOBEX_USERS, type DemoUsers } from './demo-users.js';
import { makeSigningCredential } from './saml/signing-credential.js';

/** Acme's SAML identity provider's address. */
export const ACME_HOST = '127.0.0.3';
/** Globex's OpenID provider's address. */
export const GLOBEX_HOST = '127.0.0.4';

export interface DemoOrganization {
  /** The connection's name: its file is `<connection>.json`, its paths are under `/connections/<connection in lower case>/`. */
  connection: string;
  /** What every sign-in through it carries as `application:organization`. */
  organization: string;
  protocol: 'Saml2' | 'OpenIdConnect';
  displayName: string;
  /** The organization's e-mail domain: the one its connection holds. */
  domain: string;
  /** Where its identity provider listens. */
  origin: string;
  users: DemoUsers;
}

export interface DemoOrganizations {
  acme: DemoOrganization;
  globex: DemoOrganization;
  /** The folder of connection files (a fresh temporary one, removed by `close`). */
  folder: string;
  /** The setting that points Gatehouse at the folder. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * Starts both identity providers, each registering Gatehouse at `appOrigin` by its
 * connection's paths, and writes the connection files. Acme's connection signs its
 * AuthnRequests and does single logout with a key pair made here (the key in a file of its
 * own, `SigningKeyFile`); Globex's client secret is a file too (`ClientSecretFile`), and
 * its provider sends back-channel logout tokens.
 */
export async function startDemoOrganizations(appOrigin: string): Promise<DemoOrganizations> {
  const folder = mkdtempSync(join(tmpdir(), 'gatehouse-demo-connections-'));
  const started: Array<DemoIdentityProvider | DemoSamlIdentityProvider> = [];
  const close = async () => {
    await Promise.all(started.map((provider) => provider.close()));
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    const acmeBase = `${appOrigin}/connections/acme`;
    const acmeSigning = makeSigningCredential({ commonName: 'gatehouse-demo-acme-connection' });
    const acmeIdp = await startDemoSamlIdentityProvider({
      host: ACME_HOST,
      users: ACME_USERS,
      name: "Acme's identity provider (demo)",
      serviceProviders: [
        {
          entityId: `${acmeBase}/saml2/acs`,
          acsUrl: `${acmeBase}/saml2/acs`,
          singleLogoutUrl: `${acmeBase}/saml2/logout`,
          signingCertificatePem: acmeSigning.certificatePem,
        },
      ],
    });
    started.push(acmeIdp);

    const globexBase = `${appOrigin}/connections/globex`;
    const globexClient = { clientId: 'gatehouse-globex', clientSecret: randomBytes(24).toString('base64url') };
    const globexIdp = await startDemoIdentityProvider({
      host: GLOBEX_HOST,
      users: GLOBEX_USERS,
      name: "Globex's identity provider (demo)",
      clients: [
        {
          ...globexClient,
          redirectUris: [`${globexBase}/signin-oidc`],
          postLogoutRedirectUris: [`${appOrigin}/`],
          backchannelLogoutUri: `${globexBase}/backchannel-logout`,
        },
      ],
    });
    started.push(globexIdp);

    const acme: DemoOrganization = {
      connection: 'Acme',
      organization: 'acme',
      protocol: 'Saml2',
      displayName: 'Acme Corporation',
      domain: 'acme.test',
      origin: new URL(acmeIdp.metadataUrl).origin,
      users: ACME_USERS,
    };
    const globex: DemoOrganization = {
      connection: 'Globex',
      organization: 'globex',
      protocol: 'OpenIdConnect',
      displayName: 'Globex',
      domain: 'globex.test',
      origin: new URL(globexIdp.issuer).origin,
      users: GLOBEX_USERS,
    };
    writeSecret(folder, 'acme.signing-key.pem', acmeSigning.privateKeyPem);
    writeConnection(folder, acme, {
      EntityId: `${acmeBase}/saml2/acs`,
      MetadataUrl: acmeIdp.metadataUrl,
      SigningCertificate: acmeSigning.certificatePem,
      SigningKeyFile: 'acme.signing-key.pem',
      SignAuthnRequests: true,
      SingleLogout: true,
      // The only way Acme's provider grants anything: its group, as a role within Acme.
      RoleMappings: { 'acme-admins': 'admin' },
    });
    writeSecret(folder, 'globex.client-secret', globexClient.clientSecret);
    writeConnection(folder, globex, {
      Authority: globexIdp.issuer,
      ClientId: globexClient.clientId,
      ClientSecretFile: 'globex.client-secret',
    });
    return {
      acme,
      globex,
      folder,
      env: { ProjectTemplate__Authentication__ConnectionsDirectory: folder },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** `<Name>.json`: the keys every connection has, then its protocol's. */
function writeConnection(folder: string, organization: DemoOrganization, protocolKeys: Record<string, unknown>): void {
  const file = {
    Protocol: organization.protocol,
    Organization: organization.organization,
    DisplayName: organization.displayName,
    Domains: [organization.domain],
    ...protocolKeys,
  };
  writeFileSync(join(folder, `${organization.connection}.json`), `${JSON.stringify(file, null, 2)}\n`);
}

/** A secret beside the connection files, readable by this user only, as a mounted Secret's would be. */
function writeSecret(folder: string, name: string, value: string): void {
  writeFileSync(join(folder, name), value, { mode: 0o600 });
}
