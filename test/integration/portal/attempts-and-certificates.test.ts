import { expect } from 'chai';
import { createHash, createPrivateKey, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoIdentityProvider, type DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import type { DemoUsers } from '../../../scripts/demo-users.js';
import { makeSigningCredential, type SigningCredential } from '../../../scripts/saml/signing-credential.js';
import { newApiKey } from '../../../src/adapters/koa/api-keys.js';
import { auditEvents } from '../../support/connection-app.js';
import { driveOidcLogin } from '../../support/drive-oidc-login.js';
import { LoopbackDns } from '../../support/loopback-dns.js';
import { freePort, TestBrowser } from '../../support/oidc-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';
import { telemetryReaders } from '../../support/telemetry-readers.js';

const DAY_MS = 24 * 60 * 60_000;
const CLIENT_SECRET = 'SENTINEL-attempts-client-secret-0d4e';
/** Sentinels: what Acme's identity provider says of its people; none of it may be shown, but the domain and a hash. */
const ADA = { login: 'sentinel-ada-subject-3c9e', email: 'sentinel.ada.77e0@acme.test' };
const MALLORY = { login: 'sentinel-mallory-subject-5d1a', email: 'sentinel.mallory.2b8f@globex.test' };
const ACME_USERS: DemoUsers = Object.fromEntries(
  [ADA, MALLORY].map(({ login, email }) => [
    login,
    { login, email, name: 'Sentinel Person', roles: [], permissions: [] },
  ]),
);
const CONNECTIONS = '/api/admin/connections';
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

/** An RS256 signing key with its certificate in `x5c` (RFC 7517 4.7), as an OpenID provider publishes it. */
function keyWithCertificate(credential: SigningCredential) {
  const jwk = createPrivateKey(credential.privateKeyPem).export({ format: 'jwk' });
  return { ...jwk, kid: randomBytes(8).toString('hex'), x5c: [credential.certificateBody] };
}

/**
 * A connection's recent sign-in attempts and its identity provider's certificates, through
 * a whole Gatehouse (administration API on over a folder catalog, telemetry read in memory):
 * Acme signs in through a real OpenID provider whose key carries a certificate ending in 20
 * days, Initech through a SAML identity provider whose metadata's certificate ends in 10
 * days, Globex through an OpenID provider whose keys carry no certificate.
 */
describe('the setup portal and the API: recent sign-in attempts and expiring certificates', function () {
  this.timeout(60_000);
  let app: RunningGatehouse;
  let acmeIdp: DemoIdentityProvider;
  let globexIdp: DemoIdentityProvider;
  let hooliIdp: DemoIdentityProvider;
  let initechIdp: SamlTestIdentityProvider;
  let dns: LoopbackDns;
  let folder: string;
  let apiKey: string;
  const readers = telemetryReaders();
  const samlEnd = Date.now() + 10 * DAY_MS;
  const oidcEnd = Date.now() + 20 * DAY_MS;
  const globexEnd = Date.now() + 400 * DAY_MS;

  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${app.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  /** Creates a connection through the API and proves its domain on the loopback DNS server. */
  async function connect(name: string, body: Record<string, unknown>): Promise<void> {
    const written = await api('PUT', `${CONNECTIONS}/${name}`, body);
    expect(written.status, await written.clone().text()).to.equal(201);
    const view = (await written.json()) as {
      domains: Array<{ domain: string; record: { name: string; value: string } }>;
    };
    for (const { domain, record } of view.domains) {
      dns.set(record.name, { txt: [[record.value]] });
      expect((await api('POST', `${CONNECTIONS}/${name}/domains/${domain}/verify`)).status).to.equal(200);
    }
  }

  /** A setup link of `organization` for `connection`, opened by its IT admin: the browser holding the portal's cookie. */
  async function openPortal(organization: string, connection: string): Promise<TestBrowser> {
    const made = await api('POST', `/api/admin/organizations/${organization}/setup-links`, { connection });
    expect(made.status, await made.clone().text()).to.equal(201);
    const { url } = (await made.json()) as { url: string };
    const browser = new TestBrowser();
    const opened = await browser.jar.fetch(url, { method: 'POST', headers: { origin: app.url } });
    expect(opened.status).to.equal(303);
    return browser;
  }

  /** Signs `login` in through Acme's connection: the app's answer at the callback. */
  async function signInThroughAcme(login: string): Promise<Response> {
    const browser = new TestBrowser();
    const challenge = await browser.get(`${app.url}/External/Challenge?provider=Acme&returnUrl=%2F`);
    expect(challenge.status).to.equal(302);
    const callback = await driveOidcLogin(challenge.headers.get('location') ?? '', login as 'admin', browser.jar);
    return browser.get(callback.href, { accept: 'application/json' });
  }

  const attemptsOf = async (name: string) =>
    (
      (await (await api('GET', `${CONNECTIONS}/${name}/attempts`)).json()) as {
        attempts: Array<Record<string, unknown>>;
      }
    ).attempts;

  before(async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const client = (id: string) => ({
      clientId: `${id}-client`,
      clientSecret: CLIENT_SECRET,
      redirectUris: [`${origin}/connections/${id}/signin-oidc`],
      postLogoutRedirectUris: [`${origin}/`],
    });
    const oidcSigner = makeSigningCredential({ commonName: 'acme-oidc-signer.example', notAfter: oidcEnd });
    acmeIdp = await startDemoIdentityProvider({
      clients: [client('acme')],
      users: ACME_USERS,
      signingKey: keyWithCertificate(oidcSigner),
    });
    globexIdp = await startDemoIdentityProvider({
      clients: [client('globex')],
      signingKey: keyWithCertificate(
        makeSigningCredential({ commonName: 'globex-signer.example', notAfter: globexEnd }),
      ),
    });
    hooliIdp = await startDemoIdentityProvider({ clients: [client('hooli')] });
    initechIdp = await SamlTestIdentityProvider.start(
      makeSigningCredential({ commonName: 'initech-saml-signer.example', notAfter: samlEnd }),
    );
    dns = await LoopbackDns.start();
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-attempts-'));
    const key = newApiKey(randomBytes);
    apiKey = key.key;
    app = await startGatehouse(
      {
        ProjectTemplate__Hosting__PublicOrigin: origin,
        ProjectTemplate__Authentication__HttpTimeoutSeconds: '2',
        ProjectTemplate__Authentication__ConnectionsDirectory: folder,
        ProjectTemplate__Session__PendingSignInsPerClient: '1000',
        ProjectTemplate__Administration__Enabled: 'true',
        ProjectTemplate__Administration__ApiKeys__0: key.hash,
        ProjectTemplate__Administration__EncryptionKeys__0: randomBytes(32).toString('base64'),
        ProjectTemplate__Administration__AllowPrivateNetworks: 'true',
        ProjectTemplate__Administration__DnsServers__0: dns.address,
        ProjectTemplate__Telemetry__Enabled: 'true',
        ProjectTemplate__Telemetry__Traces: 'false',
      },
      { port, telemetry: readers.parts },
    );
    const oidc = (organization: string, issuer: string, domains: string[]) => ({
      Protocol: 'OpenIdConnect',
      Organization: organization,
      Domains: domains,
      Authority: issuer,
      ClientId: `${organization}-client`,
      ClientSecret: CLIENT_SECRET,
      UsePushedAuthorization: false,
    });
    await connect('Acme', oidc('acme', acmeIdp.issuer, ['acme.test']));
    await connect('Globex', oidc('globex', globexIdp.issuer, ['globex.test']));
    await connect('Hooli', oidc('hooli', hooliIdp.issuer, ['hooli.test']));
    await connect('Initech', {
      Protocol: 'Saml2',
      Organization: 'initech',
      Domains: ['initech.test'],
      EntityId: 'https://gatehouse.test/connections',
      MetadataUrl: initechIdp.metadataUrl,
    });
  });
  after(async () => {
    await app?.close();
    await Promise.all([acmeIdp?.close(), globexIdp?.close(), hooliIdp?.close(), initechIdp?.close(), dns?.close()]);
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('shows a refused and a passed sign-in in the API and the organization’s portal: code, reason, domain, never the address or the subject', async () => {
    const refused = await signInThroughAcme(MALLORY.login);
    expect(refused.status).to.equal(403);
    expect(((await refused.json()) as { code: string }).code).to.equal('idp.domain_not_allowed');
    expect((await signInThroughAcme(ADA.login)).status).to.equal(302);

    const answer = await api('GET', `${CONNECTIONS}/Acme/attempts`);
    expect(answer.status).to.equal(200);
    const text = await answer.text();
    const [passed, refusal] = (JSON.parse(text) as { attempts: Array<Record<string, unknown>> }).attempts;
    expect(passed).to.include({ outcome: 'succeeded', emailDomain: 'acme.test', subjectSha256: sha256(ADA.login) });
    expect(refusal).to.include({
      outcome: 'refused',
      code: 'idp.domain_not_allowed',
      emailDomain: 'globex.test',
      subjectSha256: sha256(MALLORY.login),
    });
    expect(refusal!.reason).to.match(/not in one of the organization's domains/);
    expect(Date.parse(String(refusal!.at))).to.be.closeTo(Date.now(), 60_000);
    expect(text.toLowerCase()).not.to.include('sentinel');

    const portal = await openPortal('acme', 'Acme');
    const page = await portal.get(`${app.url}/setup/portal/attempts`);
    expect(page.status).to.equal(200);
    const html = await page.text();
    expect(html).to.include('<caption>').and.include('idp.domain_not_allowed').and.include('globex.test');
    expect(html)
      .to.include('acme.test')
      .and.include('Signed in')
      .and.include('not in one of the organization&#39;s domains');
    expect(html).to.include(sha256(ADA.login).slice(0, 12));
    expect(html.toLowerCase()).not.to.include('sentinel');
  });

  it('lets another organization’s portal see none of them, whatever its requests name', async () => {
    expect(await attemptsOf('Acme')).to.have.length.greaterThan(0);
    const globex = await openPortal('globex', 'Globex');
    for (const path of ['/setup/portal/attempts', '/setup/portal/attempts?connection=Acme&organization=acme']) {
      const html = await (await globex.get(`${app.url}${path}`)).text();
      expect(html, path).to.include('No one has signed in');
      expect(html, path).not.to.include('idp.domain_not_allowed');
      expect(html, path).not.to.include(sha256(ADA.login).slice(0, 12));
    }
    // Nor Acme's certificates on its overview.
    expect(await (await globex.get(`${app.url}/setup/portal`)).text()).not.to.include('acme-oidc-signer');
  });

  it('keeps the last 100 of 150 attempts, pushing out none of another connection’s', async () => {
    const before = await attemptsOf('Acme');
    await signInThroughAcme(MALLORY.login);
    const globexBefore = await attemptsOf('Globex');
    // 150 answers nobody asked for at Acme's callback (a bot): each refused, each an attempt.
    for (let n = 0; n < 150; n += 1) {
      const forged = await fetch(`${app.url}/connections/acme/signin-oidc?code=x&state=bot-${n}`, {
        redirect: 'manual',
        headers: { accept: 'application/json' },
      });
      await forged.body?.cancel();
    }
    const kept = await attemptsOf('Acme');
    expect(kept).to.have.length(100);
    expect(kept.every((attempt) => attempt.code === 'idp.flow_missing')).to.equal(true);
    expect(kept.length).to.be.greaterThan(before.length);
    expect(await attemptsOf('Globex')).to.deep.equal(globexBefore);
    const portal = await openPortal('acme', 'Acme');
    const html = await (await portal.get(`${app.url}/setup/portal/attempts`)).text();
    expect(html.match(/<tr>/g)?.length).to.equal(101); // the heading's row and 100
  });

  it('shows each identity provider’s signing certificates and their expiry in the API and the portal, and reports them as a gauge', async () => {
    const initech = await api('GET', `${CONNECTIONS}/Initech/certificates`);
    expect(initech.status).to.equal(200);
    const [saml] = (await initech.json()) as Array<{ subject: string; notAfter: string; daysLeft: number }>;
    expect(saml).to.deep.equal({
      subject: 'CN=initech-saml-signer.example',
      notAfter: new Date(Math.floor(samlEnd / 1000) * 1000).toISOString(),
      daysLeft: 10,
    });
    const acme = (await (await api('GET', `${CONNECTIONS}/Acme/certificates`)).json()) as Array<{
      subject: string;
      daysLeft: number;
    }>;
    expect(acme).to.deep.equal([
      {
        subject: 'CN=acme-oidc-signer.example',
        notAfter: new Date(Math.floor(oidcEnd / 1000) * 1000).toISOString(),
        daysLeft: 20,
      },
    ]);
    // Nobody signed in through Globex: its key set is read once for this, not per request.
    expect(await (await api('GET', `${CONNECTIONS}/Globex/certificates`)).json()).to.deep.equal([
      {
        subject: 'CN=globex-signer.example',
        notAfter: new Date(Math.floor(globexEnd / 1000) * 1000).toISOString(),
        daysLeft: 400,
      },
    ]);
    expect(
      await (await api('GET', `${CONNECTIONS}/Hooli/certificates`)).json(),
      'no x5c, no certificate',
    ).to.deep.equal([]);
    expect((await api('GET', `${CONNECTIONS}/Nobody/certificates`)).status).to.equal(404);

    const portal = await openPortal('initech', 'Initech');
    const overview = await (await portal.get(`${app.url}/setup/portal`)).text();
    expect(overview).to.include('CN=initech-saml-signer.example').and.include('expires in 10 days');

    const points = (await readers.points()).filter(
      (point) => point.metric === 'gatehouse.connection.certificate.expiry',
    );
    const seconds = (provider: string) => points.find((point) => point.attributes.provider === provider)?.value;
    expect(seconds('Initech')).to.be.closeTo((samlEnd - Date.now()) / 1000, 120);
    expect(seconds('Acme')).to.be.closeTo((oidcEnd - Date.now()) / 1000, 120);
    expect(seconds('Globex')).to.be.closeTo((globexEnd - Date.now()) / 1000, 120);
    expect(seconds('Hooli'), 'a key set without certificates has no series').to.equal(undefined);
    expect(points.every((point) => Object.keys(point.attributes).join() === 'provider')).to.equal(true);
  });

  it('warns in the log and the audit once per connection and day, however often they are read', async () => {
    for (let n = 0; n < 3; n += 1) {
      expect((await api('GET', `${CONNECTIONS}/Initech/certificates`)).status).to.equal(200);
      expect((await api('GET', `${CONNECTIONS}/Acme/certificates`)).status).to.equal(200);
    }
    const audited = auditEvents(app.logs, 'connection.certificate_expiring');
    expect(audited.map((event) => event.connection).sort()).to.deep.equal(['Acme', 'Initech']);
    expect(audited.find((event) => event.connection === 'Initech')).to.include({ organization: 'initech', count: 10 });
    const warnings = app.logs.filter(
      (line) => line.includes('signing certificate expires in') && line.includes('"level":40'),
    );
    expect(warnings).to.have.length(2);
    expect(warnings.join('\n')).to.include('"daysLeft":10').and.include('"daysLeft":20');
  });
});
