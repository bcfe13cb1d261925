import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoDnsRecordHelp } from '../../../scripts/demo-administration.js';
import { startDemoDns, type DemoDns } from '../../../scripts/demo-dns.js';
import { startDemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { startDemoSamlIdentityProvider } from '../../../scripts/demo-saml-identity-provider.js';
import { demoAdministrationSettings } from '../../../scripts/demo-settings.js';
import type { DemoUser } from '../../../scripts/demo-users.js';
import { COOKIE_POSTURE } from '../../../scripts/cookie-posture.js';
import { freePort } from '../../../scripts/free-port.js';
import { newApiKey } from '../../../src/adapters/koa/api-keys.js';
import { createGatehouse, type Gatehouse } from '../../../src/bootstrap/gatehouse.js';
import { ENCRYPTION_KEY_BYTES } from '../../../src/domain/settings/encryption-key-rules.js';

/** Where the organizations' identity providers listen: another site than the app (127.0.0.1), as a customer's is. */
const OPENID_HOST = '127.0.0.5';
const SAML_HOST = '127.0.0.6';

/** One customer organization whose IT admin sets up its connection through the portal. */
export interface PortalOrganization {
  organization: string;
  /** The connection the setup link names (the portal's). */
  connection: string;
  protocol: 'OpenIdConnect' | 'Saml2';
  /** Its people's e-mail domain, proved through the portal. */
  domain: string;
  /** Who signs in: at the test sign-in, then through the login page's e-mail form. */
  person: DemoUser;
  /** Where its identity provider listens (the browser may go there). */
  origin: string;
  /**
   * What its identity provider registered for Gatehouse before the setup (the demo providers
   * take their clients at start): the redirect URI, or the ACS URL (also the SP's entity ID).
   */
  registered: string;
  /** What the identity provider gives the IT admin to enter under "What it gave you", by the portal's field label. */
  given: Readonly<Record<string, string>>;
}

export interface PortalStack {
  appOrigin: string;
  /** The administration API's key (Bearer). */
  apiKey: string;
  dns: DemoDns;
  /** By organization name. */
  organizations: Readonly<Record<string, PortalOrganization>>;
  gatehouse: Gatehouse;
  /** Every line Gatehouse logged (warn and above). */
  logs: string[];
  /** Makes a setup link for `organization`'s connection through the administration API: its URL. */
  setupLink(organization: PortalOrganization): Promise<string>;
  close(): Promise<void>;
}

const person = (login: string, name: string, domain: string): DemoUser => ({
  login,
  name,
  email: `${login}@${domain}`,
  roles: [],
  permissions: [],
});

/**
 * The setup portal's browser suite's world, composed as `npm run demo` composes Initech's:
 * the administration API on over a folder of connections, the demo's DNS server
 * (scripts/demo-dns.ts) for the domains' TXT records, and one not-yet-connected
 * organization per `cases` entry, each with a demo identity provider of its own (one
 * connection per issuer): OpenID providers on 127.0.0.5 with a client registered for the
 * connection's redirect URI, SAML identity providers on 127.0.0.6 with the connection's
 * ACS URL registered as its entity ID and ACS. The domains step says how to publish a record
 * there as the demo's does (demoDnsRecordHelp).
 */
export async function startPortalStack(
  cases: ReadonlyArray<{ organization: string; protocol: 'OpenIdConnect' | 'Saml2'; login: string; name: string }>,
): Promise<PortalStack> {
  const appPort = await freePort();
  const appOrigin = `http://127.0.0.1:${appPort}`;
  const folder = mkdtempSync(join(tmpdir(), 'gatehouse-portal-e2e-'));
  const closers: Array<() => Promise<void>> = [async () => rmSync(folder, { recursive: true, force: true })];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  try {
    const dns = await startDemoDns();
    closers.push(() => dns.close());
    const organizations: Record<string, PortalOrganization> = {};
    for (const { organization, protocol, login, name } of cases) {
      const connection = organization[0]?.toUpperCase() + organization.slice(1);
      const domain = `${organization}.test`;
      const base = `${appOrigin}/connections/${organization}`;
      const user = person(login, name, domain);
      const displayName = `${connection}'s identity provider (demo)`;
      if (protocol === 'OpenIdConnect') {
        const client = { clientId: `gatehouse-${organization}`, clientSecret: randomBytes(18).toString('base64url') };
        const registered = `${base}/signin-oidc`;
        const idp = await startDemoIdentityProvider({
          host: OPENID_HOST,
          users: { [login]: user },
          name: displayName,
          clients: [{ ...client, redirectUris: [registered], postLogoutRedirectUris: [`${appOrigin}/`] }],
        });
        closers.push(() => idp.close());
        organizations[organization] = {
          organization,
          connection,
          protocol,
          domain,
          person: user,
          origin: new URL(idp.issuer).origin,
          registered,
          given: {
            'Issuer (Authority)': idp.issuer,
            'Client ID': client.clientId,
            'Client secret': client.clientSecret,
          },
        };
      } else {
        const registered = `${base}/saml2/acs`;
        const idp = await startDemoSamlIdentityProvider({
          host: SAML_HOST,
          users: { [login]: user },
          name: displayName,
          serviceProviders: [{ entityId: registered, acsUrl: registered }],
        });
        closers.push(() => idp.close());
        organizations[organization] = {
          organization,
          connection,
          protocol,
          domain,
          person: user,
          origin: new URL(idp.metadataUrl).origin,
          registered,
          given: { 'Metadata URL': idp.metadataUrl },
        };
      }
    }
    const { key, hash } = newApiKey(randomBytes);
    const logs: string[] = [];
    const gatehouse = await createGatehouse({
      env: {
        ...COOKIE_POSTURE,
        NODE_ENV: 'test',
        ProjectTemplate__Logging__Level: 'warn',
        ProjectTemplate__Hosting__PublicOrigin: appOrigin,
        ProjectTemplate__Hosting__ShutdownDrainSeconds: '0',
        ProjectTemplate__Authentication__ConnectionsDirectory: folder,
        ProjectTemplate__Session__PendingSignInsPerClient: '1000',
        ...demoAdministrationSettings({
          apiKeyHash: hash,
          encryptionKey: randomBytes(ENCRYPTION_KEY_BYTES).toString('base64'),
          dnsServer: dns.address,
        }),
      },
      logDestination: { write: (line: string) => void logs.push(line) },
      domainRecordHelp: (record) => demoDnsRecordHelp(dns.controlUrl, record),
    });
    closers.push(() => gatehouse.shutdown({ drain: false }));
    await gatehouse.listen(appPort, '127.0.0.1');
    return {
      appOrigin,
      apiKey: key,
      dns,
      organizations,
      gatehouse,
      logs,
      setupLink: async ({ organization, connection }) => {
        const made = await fetch(`${appOrigin}/api/admin/organizations/${organization}/setup-links`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ connection }),
        });
        const body: unknown = await made.json();
        if (made.status !== 201 || typeof body !== 'object' || body === null || !('url' in body)) {
          throw new Error(`no setup link for ${organization}: ${made.status} ${JSON.stringify(body)}`);
        }
        return String(body.url);
      },
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
