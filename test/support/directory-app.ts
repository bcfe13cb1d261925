import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoIdentityProvider, type DemoIdentityProvider } from '../../scripts/demo-identity-provider.js';
import { newApiKey } from '../../src/adapters/koa/api-keys.js';
import { adminApi, type AdminHarness } from './admin-api.js';
import { LoopbackDns } from './loopback-dns.js';
import { freePort } from './oidc-app.js';
import { startPostgres, type PostgresServer } from './postgres-server.js';
import { startGatehouse, type RunningGatehouse } from './start-gatehouse.js';

/** A sentinel client secret of the organization's connection: it must never show in a log. */
export const DIRECTORY_CLIENT_SECRET = 'SENTINEL-directory-client-secret-7b2f';

/** The organization every directory app serves, its connection, and the domain people sign in with. */
export const ORGANIZATION = 'acme';
export const DOMAIN = 'example.test';

export interface DirectoryApp {
  app: RunningGatehouse;
  provider: DemoIdentityProvider;
  /** The PostgreSQL server; undefined on the embedded store. */
  database: PostgresServer | undefined;
  /** The embedded store's file; undefined on PostgreSQL. */
  embeddedFile: string | undefined;
  /** A request to the administration API with the deployment's key. */
  api: AdminHarness['api'];
  /** A SCIM token of `organization` made through the administration API, and its base URL (no final slash). */
  newScimToken(organization?: string): Promise<{ id: string; token: string; baseUrl: string }>;
  /**
   * Another instance of the same deployment (the same settings, its own port; closed with
   * the app): on PostgreSQL with sessions in Redis, what two instances behind one origin share.
   */
  another(): Promise<RunningGatehouse>;
  close(): Promise<void>;
}

export interface DirectoryAppOptions {
  /**
   * Where directories are kept: on a real PostgreSQL server (the default, which holds the
   * connection catalog too), or in the embedded store, without a database: its file and the
   * catalog's folder in a fresh folder, removed at close.
   */
  store?: 'postgresql' | 'embedded';
}

/**
 * A whole Gatehouse syncing directories (`Directory:Enabled`), on a real PostgreSQL server or
 * the embedded store, with the administration API on and one organization, `acme`, whose
 * OpenID connection (`Acme`, a real OpenID provider holding the demo users) signs in the
 * proved domain `example.test` and maps directory groups to organization roles through
 * `roleMappings`. `env` adds or overrides settings.
 */
export async function startDirectoryApp(
  env: Record<string, string> = {},
  roleMappings: Record<string, string> = { 'Acme Admins': 'admin' },
  options: DirectoryAppOptions = {},
): Promise<DirectoryApp> {
  const folder = options.store === 'embedded' ? mkdtempSync(join(tmpdir(), 'gatehouse-directory-')) : undefined;
  const database = folder ? undefined : await startPostgres(17);
  const embeddedFile = folder && join(folder, 'directory', 'directory.sqlite');
  if (folder) mkdirSync(join(folder, 'connections'));
  const storeSettings: Record<string, string> = folder
    ? {
        ProjectTemplate__Authentication__ConnectionsDirectory: join(folder, 'connections'),
        ProjectTemplate__Directory__EmbeddedFile: embeddedFile!,
      }
    : { DATABASE_URL: database!.connectionString };
  const dns = await LoopbackDns.start();
  const port = await freePort();
  const provider = await startDemoIdentityProvider({
    clients: [
      {
        clientId: 'acme-client',
        clientSecret: DIRECTORY_CLIENT_SECRET,
        redirectUris: [`http://127.0.0.1:${port}/connections/acme/signin-oidc`],
        postLogoutRedirectUris: [`http://127.0.0.1:${port}/`],
      },
    ],
  });
  const { key, hash } = newApiKey(randomBytes);
  const settings = {
    ProjectTemplate__Hosting__PublicOrigin: `http://127.0.0.1:${port}`,
    ProjectTemplate__Session__PendingSignInsPerClient: '1000',
    ...storeSettings,
    ProjectTemplate__Administration__Enabled: 'true',
    ProjectTemplate__Administration__ApiKeys__0: hash,
    ProjectTemplate__Administration__EncryptionKeys__0: randomBytes(32).toString('base64'),
    ProjectTemplate__Administration__AllowPrivateNetworks: 'true',
    ProjectTemplate__Administration__DnsServers__0: dns.address,
    ProjectTemplate__Directory__Enabled: 'true',
    ...env,
  };
  const app = await startGatehouse(settings, { port });
  const others: RunningGatehouse[] = [];
  const api = adminApi(app.url, key);
  const created = await api('PUT', '/api/admin/connections/Acme', {
    Protocol: 'OpenIdConnect',
    Organization: ORGANIZATION,
    Domains: [DOMAIN],
    Authority: provider.issuer,
    ClientId: 'acme-client',
    ClientSecret: DIRECTORY_CLIENT_SECRET,
    UsePushedAuthorization: false,
    RoleMappings: roleMappings,
  });
  expect(created.status, 'the connection is made').to.equal(201);
  const view = (await created.json()) as { domains: Array<{ record: { name: string; value: string } }> };
  const record = view.domains[0]!.record;
  dns.set(record.name, { txt: [[record.value]] });
  const verified = await api('POST', `/api/admin/connections/Acme/domains/${DOMAIN}/verify`);
  expect(verified.status, 'the domain is proved').to.equal(200);
  return {
    app,
    provider,
    database,
    embeddedFile,
    api,
    newScimToken: async (organization = ORGANIZATION) => {
      const made = await api('POST', `/api/admin/organizations/${organization}/scim-tokens`);
      expect(made.status, 'the SCIM token is made').to.equal(201);
      const body = (await made.json()) as { id: string; token: string; baseUrl: string };
      return { id: body.id, token: body.token, baseUrl: body.baseUrl.replace(/\/$/, '') };
    },
    another: async () => {
      const other = await startGatehouse(settings);
      others.push(other);
      return other;
    },
    close: async () => {
      await Promise.all(others.map((other) => other.close()));
      await app.close();
      await provider.close();
      await dns.close();
      await database?.close();
      if (folder) rmSync(folder, { recursive: true, force: true });
    },
  };
}
