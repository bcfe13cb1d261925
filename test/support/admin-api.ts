import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoIdentityProvider, type DemoIdentityProvider } from '../../scripts/demo-identity-provider.js';
import { newApiKey } from '../../src/adapters/koa/api-keys.js';
import { randomBytes } from 'node:crypto';
import { LoopbackDns } from './loopback-dns.js';
import { freePort } from './oidc-app.js';
import { startGatehouse, type RunningGatehouse } from './start-gatehouse.js';

/** A sentinel client secret: it must never come back out of the API, the log, a file in the clear, or an error. */
export const CLIENT_SECRET = 'SENTINEL-admin-api-client-secret-5c1e';
export const ENCRYPTION_KEY = randomBytes(32).toString('base64');

export interface AdminHarness {
  app: RunningGatehouse;
  /** The first name's provider. */
  provider: DemoIdentityProvider;
  /** One provider per name (one connection per identity provider), by the name in lower case. */
  providers: ReadonlyMap<string, DemoIdentityProvider>;
  dns: LoopbackDns;
  folder: string;
  apiKey: string;
  apiKeyId: string;
  /** A request to the administration API with the harness's key (or `key`), JSON in and out. */
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** The body of a connection for organization `organization` (a name in lower case) at that name's provider. */
  connection(organization: string, domains: string[], extra?: Record<string, unknown>): Record<string, unknown>;
  close(): Promise<void>;
}

/**
 * A Gatehouse with the administration API on over the folder catalog (a fresh folder), a
 * real OpenID provider whose clients' redirect URIs are `/connections/<name>/signin-oidc`
 * for `names`, and a real DNS server on loopback that the domain checks ask.
 */
export async function startAdminHarness(
  names: readonly string[],
  env: Record<string, string | undefined> = {},
): Promise<AdminHarness> {
  const folder = mkdtempSync(join(tmpdir(), 'gatehouse-admin-'));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const providers = new Map<string, DemoIdentityProvider>();
  for (const name of [...names, 'Handmade']) {
    const id = name.toLowerCase();
    providers.set(
      id,
      await startDemoIdentityProvider({
        clients: [
          {
            clientId: `${id}-client`,
            clientSecret: CLIENT_SECRET,
            redirectUris: [`${origin}/connections/${id}/signin-oidc`],
            postLogoutRedirectUris: [`${origin}/`],
          },
        ],
      }),
    );
  }
  const provider = providers.get(names[0]!.toLowerCase())!;
  const dns = await LoopbackDns.start();
  const { key, hash, id } = newApiKey(randomBytes);
  const app = await startGatehouse(
    {
      ProjectTemplate__Hosting__PublicOrigin: origin,
      ProjectTemplate__Authentication__HttpTimeoutSeconds: '2',
      ProjectTemplate__Authentication__ConnectionsDirectory: folder,
      ProjectTemplate__Session__PendingSignInsPerClient: '1000',
      ProjectTemplate__Administration__Enabled: 'true',
      ProjectTemplate__Administration__ApiKeys__0: hash,
      ProjectTemplate__Administration__EncryptionKeys__0: ENCRYPTION_KEY,
      ProjectTemplate__Administration__AllowPrivateNetworks: 'true',
      ProjectTemplate__Administration__DnsServers__0: dns.address,
      ...env,
    },
    { port },
  );
  return {
    app,
    provider,
    providers,
    dns,
    folder,
    apiKey: key,
    apiKeyId: id,
    api: adminApi(app.url, key),
    connection: (organization, domains, extra = {}) => ({
      Protocol: 'OpenIdConnect',
      Organization: organization,
      Domains: domains,
      Authority: (providers.get(organization) ?? provider).issuer,
      ClientId: `${organization}-client`,
      ClientSecret: CLIENT_SECRET,
      UsePushedAuthorization: false,
      ...extra,
    }),
    close: async () => {
      await app.close();
      for (const started of providers.values()) await started.close();
      await dns.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Requests to the administration API at `appUrl` with the API key `key`, JSON in and out. */
export function adminApi(appUrl: string, key: string): AdminHarness['api'] {
  return (method, path, body, headers = {}) =>
    fetch(`${appUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
}
