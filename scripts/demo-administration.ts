/**
 * The administration API and the setup portal in `npm run demo`: a third customer
 * organization, Initech, whose OpenID provider runs from the start but whose connection
 * does not exist until its IT admin (the newcomer) sets it up from a setup link made at
 * start through the API and printed in the terminal. Its domain routes people there once
 * its TXT record is published on the demo's DNS server (scripts/demo-dns.ts), with the
 * command the portal's domains step shows (demoDnsRecordHelp), and verified. The API key
 * and the encryption key are made fresh at every start; the settings hold only the key's
 * hash (scripts/demo-settings.ts, demoAdministrationSettings). Development only: nothing in
 * src/ imports it.
 */
import { randomBytes } from 'node:crypto';
import { newApiKey } from '../src/adapters/koa/api-keys.js';
import type { DomainRecord, DomainRecordHelp } from '../src/adapters/koa/portal/domains-step.js';
import { ENCRYPTION_KEY_BYTES } from '../src/domain/settings/encryption-key-rules.js';
import { startDemoDns, type DemoDns } from './demo-dns.js';
import { startDemoIdentityProvider } from './demo-identity-provider.js';
import type { DemoOrganization } from './demo-organizations.js';
import { demoAdministrationSettings } from './demo-settings.js';
import { INITECH_USERS } from './demo-users.js';

/** Initech's OpenID provider's address: another site than the app and the other organizations' providers. */
export const INITECH_HOST = '127.0.0.5';

/**
 * The client Initech's provider registers for Gatehouse. Fixed and public on purpose, like
 * YOUR_APP_CLIENT: the terminal prints it for the portal's "What it gave you", and the
 * provider runs only under `npm run demo`, on loopback, signing in only Initech's demo person.
 */
export const INITECH_CLIENT = { clientId: 'gatehouse-initech', clientSecret: 'initech-demo-secret' } as const;

export interface DemoAdministrationStarted {
  /** The administration API's key for this run: printed once, in the terminal. */
  apiKey: string;
  /** Initech, not yet connected: its IT admin sets it up from the printed setup link. */
  initech: DemoOrganization;
  /** What Initech's provider gives its IT admin to enter under "What it gave you". */
  initechProvider: { issuer: string; clientId: string; clientSecret: string };
  dns: DemoDns;
  /** The settings that turn the API on. */
  env: Record<string, string>;
  /** For createGatehouse: the portal's domains step says how to publish a record on the demo's DNS server. */
  domainRecordHelp: DomainRecordHelp;
  /** Makes Initech's setup link through the API, once Gatehouse listens: its URL (it works once). */
  setupLink(): Promise<string>;
  /** The `curl` that makes another setup link for Initech (the API's answer carries its `url`). */
  newSetupLink: string[];
  /**
   * The `curl` that adds Initech's connection through the API in one request, as an
   * operator's provisioning job would instead of the portal (its domain then waits for its
   * TXT record all the same).
   */
  addConnection: string[];
  /** The `curl` that lists the connections (Initech's once its IT admin saved it). */
  listConnections: string[];
  close(): Promise<void>;
}

export async function startDemoAdministration(appOrigin: string): Promise<DemoAdministrationStarted> {
  const dns = await startDemoDns();
  const base = `${appOrigin}/connections/initech`;
  let provider;
  try {
    provider = await startDemoIdentityProvider({
      host: INITECH_HOST,
      users: INITECH_USERS,
      name: "Initech's identity provider (demo)",
      clients: [
        {
          ...INITECH_CLIENT,
          redirectUris: [`${base}/signin-oidc`],
          postLogoutRedirectUris: [`${appOrigin}/`],
          backchannelLogoutUri: `${base}/backchannel-logout`,
        },
      ],
    });
  } catch (error) {
    await dns.close();
    throw error;
  }
  const initech: DemoOrganization = {
    connection: 'Initech',
    organization: 'initech',
    protocol: 'OpenIdConnect',
    displayName: 'Initech',
    domain: 'initech.test',
    origin: new URL(provider.issuer).origin,
    users: INITECH_USERS,
  };
  const { key, hash } = newApiKey(randomBytes);
  const bearer = `Authorization: Bearer ${key}`;
  const setupLinks = `${appOrigin}/api/admin/organizations/${initech.organization}/setup-links`;
  const linkBody = JSON.stringify({ connection: initech.connection });
  const connectionBody = JSON.stringify({
    Protocol: 'OpenIdConnect',
    Organization: initech.organization,
    DisplayName: initech.displayName,
    Domains: [initech.domain],
    Authority: provider.issuer,
    ClientId: INITECH_CLIENT.clientId,
    ClientSecret: INITECH_CLIENT.clientSecret,
  });
  return {
    apiKey: key,
    initech,
    initechProvider: { issuer: provider.issuer, ...INITECH_CLIENT },
    dns,
    env: demoAdministrationSettings({
      apiKeyHash: hash,
      encryptionKey: randomBytes(ENCRYPTION_KEY_BYTES).toString('base64'),
      dnsServer: dns.address,
    }),
    domainRecordHelp: (record) => demoDnsRecordHelp(dns.controlUrl, record),
    setupLink: async () => {
      // Through the API, as an operator's staff or job makes one: audited, its token in this answer only.
      const made = await fetch(setupLinks, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: linkBody,
      });
      const answer: unknown = await made.json();
      if (made.status !== 201 || typeof answer !== 'object' || answer === null || !('url' in answer)) {
        throw new Error(`the demo could not make Initech's setup link (${made.status})`);
      }
      return String(answer.url);
    },
    newSetupLink: [
      `curl -X POST ${setupLinks}`,
      `-H ${shellQuote(bearer)} -H 'Content-Type: application/json' -d ${shellQuote(linkBody)}`,
    ],
    addConnection: [
      `curl -X PUT ${appOrigin}/api/admin/connections/${initech.connection}`,
      `-H ${shellQuote(bearer)} -H 'Content-Type: application/json'`,
      `-d ${shellQuote(connectionBody)}`,
    ],
    listConnections: [`curl ${appOrigin}/api/admin/connections -H ${shellQuote(bearer)}`],
    close: async () => {
      await provider.close();
      await dns.close();
    },
  };
}

/**
 * What the portal's domains step adds under a TXT record in the demo: the demo's domains are
 * nobody's on the internet, and their DNS is the demo's own server, where a record is
 * published with one `curl` to its control port (scripts/demo-dns.ts). A deployment's IT
 * admin publishes it at their DNS host instead, and the page says only that.
 */
export function demoDnsRecordHelp(controlUrl: string, record: DomainRecord): ReturnType<DomainRecordHelp> {
  return {
    text: "In this demo, the domain's DNS is the demo's own DNS server: publish the record there by running this in a terminal, then verify.",
    command: `curl -X POST ${controlUrl}/records -d name=${record.name} -d ${shellQuote(`value=${record.value}`)}`,
  };
}

/** One word for a POSIX shell: single-quoted, a quote inside written as `'\''`. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
