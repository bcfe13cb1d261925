import { expect } from 'chai';
import { SamlClaimUris } from '../../../src/domain/claims/claim-mappings.js';
import {
  challenge,
  CONNECTION_SP_ENTITY_ID,
  EMAIL_ATTRIBUTE,
  oidcConnection,
  samlChallenge,
  samlConnection,
  sessionClaims,
  startWithConnections,
} from '../../support/connection-app.js';
import { deliverAnswer } from '../../support/deliver-answer.js';
import { startMisbehavingOidcProvider, type MisbehavingProvider } from '../../support/misbehaving-oidc-provider.js';
import { freePort, TestBrowser } from '../../support/oidc-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';
import type { RunningGatehouse } from '../../support/start-gatehouse.js';

const SECRET = 'SENTINEL-org-roles-client-secret-91d2';

/** Everything the deployment's administrators and managers reach, which no customer's provider may open. */
const DEPLOYMENT_ROUTES = ['/Admin', '/api/app-info/admin', '/api/app-info/manage'] as const;

/**
 * A hostile customer's identity provider, which it controls, sends the deployment's role
 * and permission (as `roles`/`permissions`, as the application claims themselves, and as
 * SAML role attributes): its user signs in, as a member of its organization only, and
 * reaches none of the deployment's administration. Globex (OpenID Connect) and Acme (SAML)
 * are customers; Staff is the deployment's own staff's provider added as a connection with
 * GrantsDeploymentRoles, which only the configuration can say.
 */
describe("connections: a customer's identity provider grants roles in its own organization only", function () {
  this.timeout(20_000);
  let app: RunningGatehouse;
  let globex: MisbehavingProvider;
  let staff: MisbehavingProvider;
  let acme: SamlTestIdentityProvider;

  before(async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const client = (name: string) => ({
      clientId: `${name}-client`,
      clientSecret: SECRET,
      redirectUri: `${origin}/connections/${name}/signin-oidc`,
    });
    [globex, staff, acme] = await Promise.all([
      startMisbehavingOidcProvider(client('globex')),
      startMisbehavingOidcProvider(client('staff')),
      SamlTestIdentityProvider.start(),
    ]);
    app = await startWithConnections(port, {
      Globex: oidcConnection('globex', ['example.test'], globex.issuer, client('globex'), {
        RoleMappings: { 'globex-it-admins': 'admin' },
        PermissionMappings: { 'globex-billing': 'billing.read' },
      }),
      // Both small providers name the same user: the staff one answers with an address of its own domain.
      Staff: oidcConnection('staff', ['staff.test'], staff.issuer, client('staff'), { GrantsDeploymentRoles: true }),
      Acme: samlConnection('acme', ['example.com'], acme, { extra: { RoleMappings: { 'acme-admins': 'admin' } } }),
    });
  });
  beforeEach(() => {
    globex.reset();
    staff.reset();
  });
  after(async () => {
    await app?.close();
    await Promise.all([globex?.close(), staff?.close(), acme?.close()]);
  });

  async function signInThrough(provider: MisbehavingProvider, name: string, userinfo: Record<string, unknown>) {
    const browser = new TestBrowser();
    provider.userinfoClaims = { email_verified: true, ...userinfo };
    const authorization = await challenge(browser, app.url, name);
    const answered = await fetch(authorization, { redirect: 'manual' });
    const landed = await browser.get(answered.headers.get('location') ?? '', { accept: 'application/json' });
    expect(landed.status, `the sign-in through ${name}`).to.equal(302);
    return browser;
  }

  async function signInAtAcme(attributes: Record<string, string[]>) {
    const browser = new TestBrowser();
    const request = await samlChallenge(browser, app.url, 'Acme');
    const form = acme.answer(request, CONNECTION_SP_ENTITY_ID, {
      assertion: { nameId: 'ada@example.com', attributes: { [EMAIL_ATTRIBUTE]: ['ada@example.com'], ...attributes } },
    });
    const landed = await deliverAnswer(browser, { method: 'POST', url: request.acsUrl, form }, app.url);
    expect(landed.status, 'the sign-in through Acme').to.equal(302);
    return browser;
  }

  const statusOf = async (browser: TestBrowser, path: string) => {
    const response = await browser.get(`${app.url}${path}`, { accept: 'application/json' });
    await response.body?.cancel();
    return response.status;
  };
  const claimsOf = async (browser: TestBrowser, type: string) =>
    ((await sessionClaims(app.gatehouse, browser, app.url)) ?? []).filter(([t]) => t === type).map(([, v]) => v);

  const deploymentClaims = {
    roles: ['Administrator'],
    role: 'Administrator',
    permissions: ['application.manage'],
    'application:role': 'Administrator',
    'application:permission': 'application.manage',
  };

  it('OpenID Connect: roles, permissions and the application claims themselves open none of the deployment’s administration', async () => {
    const browser = await signInThrough(globex, 'Globex', deploymentClaims);
    for (const path of DEPLOYMENT_ROUTES) expect(await statusOf(browser, path), path).to.equal(403);
    expect(await claimsOf(browser, 'application:role')).to.deep.equal([]);
    expect(await claimsOf(browser, 'application:permission')).to.deep.equal([]);
    // Still a member of its own organization, as the sign-in was for.
    expect(await statusOf(browser, '/api/organizations/globex/app-info')).to.equal(200);
  });

  it('SAML: the role attributes and application:role as an attribute open none of it either', async () => {
    const browser = await signInAtAcme({
      [SamlClaimUris.Role]: ['Administrator'],
      'application:role': ['Administrator'],
      'application:permission': ['application.manage'],
    });
    for (const path of DEPLOYMENT_ROUTES) expect(await statusOf(browser, path), path).to.equal(403);
    expect(await claimsOf(browser, 'application:role')).to.deep.equal([]);
  });

  it('maps a group through RoleMappings to an organization role, which opens its own organization’s administration only', async () => {
    const browser = await signInThrough(globex, 'Globex', { groups: ['globex-it-admins', 'globex-billing'] });
    expect(await claimsOf(browser, 'application:organization_role')).to.deep.equal(['admin']);
    expect(await claimsOf(browser, 'application:organization_permission')).to.deep.equal(['billing.read']);
    expect(await statusOf(browser, '/api/organizations/globex/app-info/admin')).to.equal(200);
    expect(await statusOf(browser, '/api/organizations/acme/app-info/admin')).to.equal(403);
    for (const path of DEPLOYMENT_ROUTES) expect(await statusOf(browser, path), path).to.equal(403);
  });

  it('grants no organization role for an unmapped value, nor for one the provider sends as the organization role claim', async () => {
    const browser = await signInThrough(globex, 'Globex', {
      groups: ['Administrators'],
      'application:organization_role': 'admin',
    });
    expect(await claimsOf(browser, 'application:organization_role')).to.deep.equal([]);
    expect(await statusOf(browser, '/api/organizations/globex/app-info/admin')).to.equal(403);
  });

  it('SAML: a role attribute mapped by RoleMappings makes an organization administrator', async () => {
    const browser = await signInAtAcme({ [SamlClaimUris.Groups]: ['acme-admins'] });
    expect(await statusOf(browser, '/api/organizations/acme/app-info/admin')).to.equal(200);
    expect(await statusOf(browser, '/api/organizations/globex/app-info/admin')).to.equal(403);
  });

  it("takes the organization from the connection, never from the provider's plain organization claim", async () => {
    const browser = await signInThrough(globex, 'Globex', { organization: 'acme', org: 'acme', tenant: 'acme' });
    expect(await claimsOf(browser, 'application:organization')).to.deep.equal(['globex']);
    expect(await statusOf(browser, '/api/organizations/acme/app-info')).to.equal(403);
    const saml = await signInAtAcme({ organization: ['globex'] });
    expect(await claimsOf(saml, 'application:organization')).to.deep.equal(['acme']);
    expect(await statusOf(saml, '/api/organizations/globex/app-info')).to.equal(403);
  });

  it('lets a connection the configuration marked GrantsDeploymentRoles grant the deployment’s roles, and says so at start', async () => {
    const browser = await signInThrough(staff, 'Staff', { ...deploymentClaims, email: 'mona@staff.test' });
    expect(await statusOf(browser, '/api/app-info/admin')).to.equal(200);
    expect(await statusOf(browser, '/api/app-info/manage')).to.equal(200);
    const warned = app.logs.find((line) => line.includes('Connections:Staff:GrantsDeploymentRoles'));
    expect(warned, 'the start names the connection that grants deployment roles').to.contain('"level":40');
  });
});
