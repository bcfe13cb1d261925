import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newApiKey } from '../../../src/adapters/koa/api-keys.js';
import { CLIENT_SECRET, ENCRYPTION_KEY, startAdminHarness, type AdminHarness } from '../../support/admin-api.js';
import { TestBrowser } from '../../support/oidc-app.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

/** Starts a connection's sign-in by its name: the status and the problem code of the answer. */
async function challengeOf(appUrl: string, name: string): Promise<{ status: number; code?: string }> {
  const answer = await new TestBrowser().get(`${appUrl}/External/Challenge?provider=${name}&returnUrl=%2F`, {
    accept: 'application/json',
  });
  const body = answer.status === 302 ? {} : ((await answer.json()) as { code?: string });
  return { status: answer.status, ...(body.code === undefined ? {} : { code: body.code }) };
}

/**
 * The requests a connection's adapter sends on its own go through the address guard when an
 * organization declared the connection (through the administration API or the setup
 * portal), unless the operator allows private networks: the customer's discovery document
 * could otherwise send this server's token requests to the deployment's own network. The
 * operator's connections are not guarded. Here the identity providers listen on loopback
 * (over http), which the guard refuses and `AllowPrivateNetworks` allows.
 */
describe("a connection an organization declared: its provider's addresses vetted at each request", function () {
  this.timeout(60_000);
  let harness: AdminHarness;
  let guarded: RunningGatehouse;

  before(async () => {
    harness = await startAdminHarness(['Acme']);
    const put = await harness.api('PUT', '/api/admin/connections/Acme', harness.connection('acme', ['example.test']));
    expect(put.status).to.equal(201);
    // The operator's own file, beside it, at the other loopback provider.
    writeFileSync(
      join(harness.folder, 'Handmade.json'),
      JSON.stringify({
        Protocol: 'OpenIdConnect',
        Organization: 'handmade',
        Domains: ['handmade.test'],
        Authority: harness.providers.get('handmade')!.issuer,
        ClientId: 'handmade-client',
        ClientSecret: CLIENT_SECRET,
        UsePushedAuthorization: false,
      }),
    );
    // The same folder, served by an instance that does not allow private networks.
    guarded = await startGatehouse({
      ProjectTemplate__Authentication__HttpTimeoutSeconds: '2',
      ProjectTemplate__Authentication__ConnectionsDirectory: harness.folder,
      ProjectTemplate__Administration__Enabled: 'true',
      ProjectTemplate__Administration__ApiKeys__0: newApiKey(randomBytes).hash,
      ProjectTemplate__Administration__EncryptionKeys__0: ENCRYPTION_KEY,
      ProjectTemplate__Administration__AllowPrivateNetworks: 'false',
    });
  });
  after(async () => {
    await guarded?.close();
    await harness?.close();
  });

  it('reaches the provider where the operator allows private networks', async () => {
    expect(await challengeOf(harness.app.url, 'Acme')).to.deep.equal({ status: 302 });
  });

  it("refuses to send the declared connection's requests to a loopback address, and names neither it nor the secret", async () => {
    const refused = await challengeOf(guarded.url, 'Acme');
    expect(refused).to.deep.equal({ status: 503, code: 'idp.unreachable' });
    const log = guarded.logs.join('\n');
    expect(log).to.not.contain(harness.provider.issuer);
    expect(log).to.not.contain(CLIENT_SECRET);
  });

  it("leaves the operator's own connection unguarded: its provider on loopback is reached", async () => {
    expect(await challengeOf(guarded.url, 'Handmade')).to.deep.equal({ status: 302 });
  });
});
