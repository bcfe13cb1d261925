import { expect } from 'chai';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDemoIdentityProvider, type DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { CLIENT_SECRET, startAdminHarness, type AdminHarness } from '../../support/admin-api.js';
import { auditEvents, discover, eventually, sessionClaims } from '../../support/connection-app.js';
import { driveOidcLogin } from '../../support/drive-oidc-login.js';
import { freePort, TestBrowser } from '../../support/oidc-app.js';
import { PortalBrowser } from '../../support/setup-portal.js';

const CONNECTIONS = '/api/admin/connections';
/** The deployment's own provider's client secret (configured, so the log redacts it too). */
const STAFF_CLIENT_SECRET = 'staff-provider-client-secret-9e2b';
const JSON_ACCEPT = { accept: 'application/json' };

interface Staff {
  harness: AdminHarness;
  /** The deployment's own OpenID provider (`Authentication:Providers:OpenIdConnect`). */
  staffProvider: DemoIdentityProvider;
}

/**
 * The administration API with the deployment's own OpenID provider on, whose `admin` holds
 * `application.manage` (the demo users), made the API's permission, and the Prometheus
 * metrics listener on. The provider's port is chosen before the app starts (its Authority)
 * and it listens once the app's origin (its redirect URI) is known: Gatehouse discovers a
 * provider at its first use.
 */
async function startWithStaff(): Promise<Staff> {
  const staffPort = await freePort();
  const harness = await startAdminHarness(['Acme', 'Globex'], {
    ProjectTemplate__Administration__ManagePermission: 'application.manage',
    // The metrics an operator scrapes, on a port of their own: a secret must not reach them either.
    ProjectTemplate__Telemetry__Enabled: 'true',
    ProjectTemplate__Telemetry__PrometheusPort: '0',
    ProjectTemplate__Authentication__Providers__OpenIdConnect__Enabled: 'true',
    ProjectTemplate__Authentication__Providers__OpenIdConnect__Authority: `http://127.0.0.1:${staffPort}`,
    ProjectTemplate__Authentication__Providers__OpenIdConnect__ClientId: 'gatehouse-staff',
    ProjectTemplate__Authentication__Providers__OpenIdConnect__ClientSecret: STAFF_CLIENT_SECRET,
  });
  const staffProvider = await startDemoIdentityProvider({
    port: staffPort,
    clients: [
      {
        clientId: 'gatehouse-staff',
        clientSecret: STAFF_CLIENT_SECRET,
        redirectUris: [`${harness.app.url}/signin-oidc`],
        postLogoutRedirectUris: [`${harness.app.url}/`],
      },
    ],
  });
  return { harness, staffProvider };
}

/** A browser signed in through the deployment's own provider as `login`. */
async function signedIn(appUrl: string, login: 'admin' | 'user'): Promise<TestBrowser> {
  const browser = new TestBrowser();
  const callback = await browser.signIn(appUrl, login);
  expect(callback.status, `${login} signs in`).to.equal(302);
  expect(browser.sessionToken(appUrl)).to.be.a('string');
  return browser;
}

/** A cookie caller's write, as a script of the page sends it (JSON, with the headers given). */
function write(
  browser: TestBrowser,
  url: string,
  method: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Response> {
  return browser.jar.fetch(url, {
    method,
    headers: { ...JSON_ACCEPT, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Every header of an answer, as text to look for a secret in. */
function headerText(headers: Headers): string {
  const lines: string[] = [];
  headers.forEach((value, name) => lines.push(`${name}: ${value}`));
  return lines.join('; ');
}

const codeOf = async (response: Response) => ((await response.json()) as { code?: string }).code;

describe('administration API callers: staff, organizations and keys', function () {
  this.timeout(60_000);
  let harness: AdminHarness;
  let staffProvider: DemoIdentityProvider;
  let url: string;
  before(async () => {
    ({ harness, staffProvider } = await startWithStaff());
    url = harness.app.url;
  });
  after(async () => {
    await harness?.close();
    await staffProvider?.close();
  });
  afterEach(async () => {
    for (const name of ['Acme', 'Globex']) await harness.api('DELETE', `${CONNECTIONS}/${name}`);
  });

  it('lets signed-in staff with the manage permission list, answering the anti-forgery token with a read', async () => {
    const staff = await signedIn(url, 'admin');
    const listed = await staff.get(`${url}${CONNECTIONS}`, JSON_ACCEPT);
    expect(listed.status).to.equal(200);
    expect(await listed.json()).to.have.property('connections');
    expect(listed.headers.get('x-csrf-token')).to.match(/^[A-Za-z0-9_-]{20,}$/);
  });

  it('refuses a signed-in user without the permission (403), reading or writing', async () => {
    const user = await signedIn(url, 'user');
    const read = await user.get(`${url}${CONNECTIONS}`, JSON_ACCEPT);
    expect(read.status).to.equal(403);
    expect(await codeOf(read)).to.equal('auth.forbidden');
    const token = read.headers.get('x-csrf-token') ?? '';
    const put = await write(user, `${url}${CONNECTIONS}/Acme`, 'PUT', harness.connection('acme', ['example.test']), {
      'x-csrf-token': token,
      origin: url,
    });
    expect(put.status).to.equal(403);
    expect(readdirSync(harness.folder)).to.deep.equal([]);
  });

  it('answers an anonymous caller 401 with the scheme to authenticate with', async () => {
    const anonymous = await fetch(`${url}${CONNECTIONS}`, { headers: JSON_ACCEPT });
    expect(anonymous.status).to.equal(401);
    expect(anonymous.headers.get('www-authenticate')).to.match(/^Bearer /);
  });

  it("refuses a cookie caller's write without the session's token, with another, or from another site, changing nothing", async () => {
    const staff = await signedIn(url, 'admin');
    const token = (await staff.get(`${url}${CONNECTIONS}`, JSON_ACCEPT)).headers.get('x-csrf-token') ?? '';
    expect(token).to.not.equal('');
    const body = harness.connection('acme', ['example.test']);
    const forged: Array<[label: string, headers: Record<string, string>]> = [
      ['no token', { origin: url }],
      ['no token and no Origin', {}],
      ['an empty token', { 'x-csrf-token': '', origin: url }],
      ['another token', { 'x-csrf-token': `${token.slice(0, -2)}xx`, origin: url }],
      ['the token, from another site', { 'x-csrf-token': token, origin: 'http://evil.example' }],
      ['the token, from another port', { 'x-csrf-token': token, origin: url.replace(/:(\d+)$/, ':1') }],
      ['the token, sent cross-site', { 'x-csrf-token': token, 'sec-fetch-site': 'cross-site' }],
    ];
    for (const [label, headers] of forged) {
      const refused = await write(staff, `${url}${CONNECTIONS}/Acme`, 'PUT', body, headers);
      expect(refused.status, label).to.equal(400);
      expect(await codeOf(refused), label).to.equal('antiforgery.invalid');
    }
    expect(readdirSync(harness.folder)).to.deep.equal([]);
    expect((await harness.api('GET', `${CONNECTIONS}/Acme`)).status).to.equal(404);

    const created = await write(staff, `${url}${CONNECTIONS}/Acme`, 'PUT', body, {
      'x-csrf-token': token,
      origin: url,
    });
    expect(created.status).to.equal(201);
    // Every unsafe method asks for it: PATCH, POST and DELETE too.
    for (const [method, path, payload] of [
      ['PATCH', `${CONNECTIONS}/Acme`, { Enabled: false }],
      ['POST', `${CONNECTIONS}/Acme/domains/example.test/verify`, undefined],
      ['DELETE', `${CONNECTIONS}/Acme/domains/example.test`, undefined],
      ['DELETE', `${CONNECTIONS}/Acme`, undefined],
    ] as const) {
      const refused = await write(staff, `${url}${path}`, method, payload, { origin: url });
      expect(refused.status, `${method} ${path}`).to.equal(400);
    }
    const view = (await (await harness.api('GET', `${CONNECTIONS}/Acme`)).json()) as { version: number; state: string };
    expect(view).to.include({ version: 1, state: 'in-force' });
    const removed = await write(staff, `${url}${CONNECTIONS}/Acme`, 'DELETE', undefined, {
      'x-csrf-token': token,
      origin: url,
    });
    expect(removed.status).to.equal(204);
  });

  it('audits a staff write by the hash of the subject, never the subject itself', async () => {
    const staff = await signedIn(url, 'admin');
    const token = (await staff.get(`${url}${CONNECTIONS}`, JSON_ACCEPT)).headers.get('x-csrf-token') ?? '';
    const created = await write(
      staff,
      `${url}${CONNECTIONS}/Acme`,
      'PUT',
      harness.connection('acme', ['example.test']),
      { 'x-csrf-token': token },
    );
    expect(created.status).to.equal(201);
    const subject = (await sessionClaims(harness.app.gatehouse, staff, url))?.find(
      ([type]) => type === 'application:subject',
    )?.[1];
    expect(subject).to.be.a('string').and.not.equal('');
    const hash = createHash('sha256').update(subject!, 'utf8').digest('base64url');
    const event = auditEvents(harness.app.logs, 'connection.created').at(-1);
    expect(event).to.include({ actor: `staff:${hash}`, connection: 'Acme', organization: 'acme' });
    expect(event).to.not.have.property('subject');
    const added = auditEvents(harness.app.logs, 'domain.added').at(-1);
    expect(added).to.include({ actor: `staff:${hash}` });
    for (const line of harness.app.logs.filter((line) => line.includes('"audit":true') && line.includes('staff:'))) {
      expect(line).to.not.include(`staff:${subject}"`);
    }
  });

  it("refuses an organization's administrator signed in through its connection: a customer's admin is never the deployment's", async () => {
    // Acme's provider says its `admin` is an Administrator holding application.manage: mapped,
    // those are Acme's organization role and permission only.
    const created = (await (
      await harness.api(
        'PUT',
        `${CONNECTIONS}/Acme`,
        harness.connection('acme', ['example.test'], {
          RoleMappings: { Administrator: 'admin' },
          PermissionMappings: { 'application.manage': 'application.manage' },
        }),
      )
    ).json()) as { domains: Array<{ record: { name: string; value: string } }> };
    const record = created.domains[0]!.record;
    harness.dns.set(record.name, { txt: [[record.value]] });
    expect((await harness.api('POST', `${CONNECTIONS}/Acme/domains/example.test/verify`)).status).to.equal(200);

    const customer = new TestBrowser();
    const start = await discover(customer, url, 'ada@example.test');
    expect(start.status).to.equal(302);
    const callback = await driveOidcLogin(start.headers.get('location') ?? '', 'admin', customer.jar);
    expect(callback.href).to.include('/connections/acme/signin-oidc');
    expect((await customer.get(callback.href)).status).to.equal(302);
    const claims = (await sessionClaims(harness.app.gatehouse, customer, url)) ?? [];
    expect(claims).to.deep.include(['application:organization_role', 'admin']);
    expect(claims).to.deep.include(['application:organization_permission', 'application.manage']);

    const read = await customer.get(`${url}${CONNECTIONS}`, JSON_ACCEPT);
    expect(read.status).to.equal(403);
    const token = read.headers.get('x-csrf-token') ?? '';
    const put = await write(
      customer,
      `${url}${CONNECTIONS}/Acme`,
      'PUT',
      harness.connection('acme', ['example.test']),
      {
        'x-csrf-token': token,
        origin: url,
      },
    );
    expect(put.status).to.equal(403);
    const removed = await write(customer, `${url}${CONNECTIONS}/Acme`, 'DELETE', undefined, {
      'x-csrf-token': token,
      origin: url,
    });
    expect(removed.status).to.equal(403);
    expect(((await (await harness.api('GET', `${CONNECTIONS}/Acme`)).json()) as { version: number }).version).to.equal(
      2,
    );
  });

  it('lets no answer, log line, audit line or file hold a client secret, across every endpoint and error', async () => {
    const answers: string[] = [];
    const call = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
      const response = await harness.api(method, path, body, headers);
      answers.push(`${method} ${path} ${response.status} ${headerText(response.headers)} ${await response.text()}`);
      return response.status;
    };
    const raw = async (text: string) => {
      const response = await fetch(`${url}${CONNECTIONS}/Acme`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${harness.apiKey}`, 'content-type': 'application/json' },
        body: text,
      });
      answers.push(`PUT raw ${response.status} ${await response.text()}`);
      return response.status;
    };
    const body = (extra: Record<string, unknown> = {}) => harness.connection('acme', ['example.test'], extra);

    // Errors before anything is stored.
    expect(await call('PUT', `${CONNECTIONS}/Acme`, body({ Colour: CLIENT_SECRET }))).to.equal(422);
    expect(await call('PUT', `${CONNECTIONS}/Acme`, body({ ClientSecret: [CLIENT_SECRET] }))).to.equal(422);
    expect(await call('PUT', `${CONNECTIONS}/Acme`, body({ ClientSecret: { value: CLIENT_SECRET } }))).to.equal(422);
    expect(await call('PUT', `${CONNECTIONS}/Acme`, body({ ClientSecretFile: CLIENT_SECRET }))).to.equal(422);
    expect(
      await call('PUT', `${CONNECTIONS}/Acme`, body({ Authority: `${harness.provider.issuer}/nowhere` })),
    ).to.equal(422);
    expect(await raw(`{"ClientSecret": "${CLIENT_SECRET}", `)).to.equal(400);
    expect(await raw(JSON.stringify(body()).replace('{', '{"ClientSecret": 1, '))).to.be.oneOf([201, 422]);
    await harness.api('DELETE', `${CONNECTIONS}/Acme`);

    // Create, read, list, change, turn off and on, verify (missing, then found).
    expect(await call('PUT', `${CONNECTIONS}/Acme`, body(), { 'if-none-match': '*' })).to.equal(201);
    expect(await call('PUT', `${CONNECTIONS}/Acme`, body(), { 'if-none-match': '*' })).to.equal(409);
    expect(await call('GET', `${CONNECTIONS}/Acme`)).to.equal(200);
    expect(await call('GET', `${CONNECTIONS}?limit=10`)).to.equal(200);
    expect(await call('GET', `${CONNECTIONS}/Acme/domains`)).to.equal(200);
    expect(await call('PUT', `${CONNECTIONS}/Acme`, body({ DisplayName: 'Acme Corp' }))).to.equal(200);
    expect(await call('PUT', `${CONNECTIONS}/Acme`, body({ DisplayName: 'Stale' }), { 'if-match': '"1"' })).to.equal(
      409,
    );
    expect(await call('PATCH', `${CONNECTIONS}/Acme`, { Enabled: false })).to.equal(200);
    expect(await call('PATCH', `${CONNECTIONS}/Acme`, { Enabled: true })).to.equal(200);
    expect(await call('POST', `${CONNECTIONS}/Acme/domains/example.test/verify`)).to.equal(422);
    const view = (await (await harness.api('GET', `${CONNECTIONS}/Acme`)).json()) as {
      domains: Array<{ record: { name: string; value: string } }>;
    };
    harness.dns.set(view.domains[0]!.record.name, { txt: [[view.domains[0]!.record.value]] });
    expect(await call('POST', `${CONNECTIONS}/Acme/domains/example.test/verify`)).to.equal(200);
    expect(await call('GET', `${CONNECTIONS}/Acme`)).to.equal(200);

    // The operator's hand-written file holds its secret in the clear: the API shows that it is set, never what.
    writeFileSync(
      join(harness.folder, 'Handmade.json'),
      JSON.stringify(harness.connection('handmade', ['handmade.test'])),
    );
    await eventually('the hand-written file is read', async () => {
      const response = await harness.api('GET', `${CONNECTIONS}/Handmade`);
      await response.body?.cancel();
      return response.status === 200;
    });
    expect(await call('GET', `${CONNECTIONS}/Handmade`)).to.equal(200);
    expect(await call('GET', `${CONNECTIONS}?limit=100`)).to.equal(200);
    expect(await call('PUT', `${CONNECTIONS}/Handmade`, harness.connection('handmade', ['handmade.test']))).to.equal(
      409,
    );
    expect(answers.join('\n')).to.include('"secretsSet":["ClientSecret"]');

    expect(answers.join('\n')).to.not.include(CLIENT_SECRET);
    expect(harness.app.logs.join('\n')).to.not.include(CLIENT_SECRET);
    expect(harness.app.logs.filter((line) => line.includes('"audit":true')).length).to.be.greaterThan(5);
    const stored = readFileSync(join(harness.folder, 'Acme.json'), 'utf8');
    expect(stored).to.not.include(CLIENT_SECRET);
    expect(JSON.parse(stored).ClientSecret).to.match(/^gh1\./);
    await harness.api('DELETE', `${CONNECTIONS}/Handmade`);
    rmSync(join(harness.folder, 'Handmade.json'));
  });

  it('lets no page an administrator sees, nor readiness, nor the Prometheus metrics hold a client secret or private key given through the API', async () => {
    // Globex signs in with private_key_jwt: its key, a private JWK, is the second secret; its `d` the part to look for.
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const clientKey = privateKey.export({ format: 'jwk' });
    const sentinels = [CLIENT_SECRET, String(clientKey.d), JSON.stringify(clientKey)];

    const acme = harness.connection('acme', ['example.test'], { ShowOnLoginPage: true, DisplayName: 'Acme SSO' });
    const created = await harness.api('PUT', `${CONNECTIONS}/Acme`, acme);
    expect(created.status).to.equal(201);
    const record = ((await created.json()) as { domains: Array<{ record: { name: string; value: string } }> })
      .domains[0]!.record;
    harness.dns.set(record.name, { txt: [[record.value]] });
    expect((await harness.api('POST', `${CONNECTIONS}/Acme/domains/example.test/verify`)).status).to.equal(200);
    const globex = await harness.api('PUT', `${CONNECTIONS}/Globex`, {
      ...harness.connection('globex', ['globex.test'], {
        ClientAuthentication: 'private_key_jwt',
        ClientKey: JSON.stringify(clientKey),
      }),
      ClientSecret: undefined,
    });
    expect(globex.status, await globex.clone().text()).to.equal(201);
    expect(((await globex.json()) as { secretsSet: string[] }).secretsSet).to.deep.equal(['ClientKey']);

    // A customer signs in through Acme's connection: its secret goes to the provider's token endpoint, and the
    // sign-in is counted in the metrics by connection.
    const customer = new TestBrowser();
    const start = await discover(customer, url, 'ada@example.test');
    const callback = await driveOidcLogin(start.headers.get('location') ?? '', 'user', customer.jar);
    expect((await customer.get(callback.href)).status).to.equal(302);
    expect(customer.sessionToken(url)).to.be.a('string');

    const outputs: Array<[label: string, text: string]> = [];
    const keep = async (label: string, response: Response) => {
      const text = await response.text();
      expect(response.status, label).to.equal(200);
      outputs.push([label, `${headerText(response.headers)}\n${text}`]);
      return text;
    };
    const staff = await signedIn(url, 'admin');
    const admin = await keep('/Admin', await staff.get(`${url}/Admin`));
    // The page lists both connections, by name and state: a secret beside them would be seen.
    expect(admin).to.include('Acme').and.include('Globex');
    await keep('/ (staff)', await staff.get(`${url}/`));
    const login = await keep('/Account/Login', await new TestBrowser().get(`${url}/Account/Login`));
    expect(login).to.include('Acme SSO');
    await keep('/ (customer)', await customer.get(`${url}/`));

    // The setup portal of each organization shows its connection as stored.
    for (const organization of ['acme', 'globex']) {
      const portal = await PortalBrowser.open(harness, organization);
      for (const path of ['/setup/portal', '/setup/portal/identity-provider', '/setup/portal/domains']) {
        await keep(`${organization} ${path}`, await portal.get(`${url}${path}`));
      }
    }

    // Readiness asked from this host names each connection and its state.
    const ready = await keep('/health/ready', await fetch(`${url}/health/ready`));
    expect(JSON.parse(ready)).to.have.nested.property('connections.Globex');
    await keep('/health', await fetch(`${url}/health`));

    const metricsUrl = (await harness.app.gatehouse.metricsUrl()) ?? expect.fail('no metrics listener');
    const metrics = await keep('/metrics', await fetch(metricsUrl));
    expect(metrics).to.match(/^gatehouse_authentication_sign_ins_total\{.*outcome="success"/m);

    outputs.push(['the log', harness.app.logs.join('\n')]);
    for (const [label, text] of outputs) {
      for (const sentinel of [...sentinels, 'gh1.'])
        expect(text.includes(sentinel), `${label} holds a secret`).to.equal(false);
    }
    // The stored file holds the key sealed, never in the clear.
    const stored = readFileSync(join(harness.folder, 'Globex.json'), 'utf8');
    expect(JSON.parse(stored).ClientKey).to.match(/^gh1\./);
    for (const sentinel of sentinels) expect(stored).to.not.include(sentinel);
  });
});

describe('administration API callers: refused keys are limited per client', function () {
  this.timeout(60_000);
  let harness: AdminHarness;
  before(async () => {
    harness = await startAdminHarness(['Acme']);
  });
  after(async () => harness?.close());

  it('answers 401 with www-authenticate to each of the first 20 wrong keys, and 429 past them', async () => {
    const wrong = async (index: number) => {
      const response = await harness.api('GET', CONNECTIONS, undefined, {
        authorization: `Bearer gh_wrong-key-${index}-SENTINEL`,
      });
      await response.body?.cancel();
      return response;
    };
    const right = async () => {
      const response = await harness.api('GET', CONNECTIONS);
      await response.body?.cancel();
      return response.status;
    };
    for (let index = 1; index <= 20; index += 1) {
      const refused = await wrong(index);
      expect(refused.status, `wrong key ${index}`).to.equal(401);
      expect(refused.headers.get('www-authenticate')).to.equal('Bearer realm="administration"');
      // The right key works all the while.
      if (index % 5 === 0) expect(await right(), `the right key after ${index} wrong`).to.equal(200);
    }
    const limited = await wrong(21);
    expect(limited.status).to.equal(429);
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 600);
    expect((await wrong(22)).status).to.equal(429);
    // Another scheme is a refused credential too.
    const basic = await harness.api('GET', CONNECTIONS, undefined, { authorization: 'Basic YWRtaW46YWRtaW4=' });
    expect(basic.status).to.equal(429);
    // The job holding the right key is not locked out by whoever guesses from its address.
    expect(await right()).to.equal(200);
    expect(harness.app.logs.join('\n')).to.not.include('SENTINEL');
  });
});
