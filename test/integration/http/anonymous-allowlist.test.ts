import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { routeTemplate, type Endpoint } from '../../../src/adapters/koa/endpoint.js';
import { allowAnonymous } from '../../../src/domain/authorization/endpoint-metadata.js';
import { startGatehouse, startGatehouseAsConfigured, type RunningGatehouse } from '../../support/start-gatehouse.js';

/** The reviewed allowlist (docs: Authorization rules, 6). Changing it needs a review. */
const REVIEWED_ANONYMOUS = [
  '/Account/Login',
  '/External/Challenge',
  '/Account/AccessDenied',
  '/Home/Error/{statusCode?}',
  '/health',
  '/health/live',
  '/health/ready',
];

/**
 * Where connections exist (docs/connections.md), the login page's "Sign in with your work
 * e-mail" form posts here: anonymous by nature (nobody is signed in yet), anti-forgery
 * checked, starting a challenge and storing nothing else. Reviewed with the connections.
 */
const REVIEWED_WITH_CONNECTIONS = '/External/Discover';

/**
 * Where the administration API is on, the setup portal (docs/connections.md, The setup
 * portal): a customer's IT admin has no account here, so its pages are anonymous to the
 * application's authorization, and each but the link's own page and the test's landing page
 * is behind the portal's guard (its own session, for one organization). Reviewed with the portal.
 */
const REVIEWED_WITH_PORTAL = [
  '/setup/link/{token}',
  '/setup/portal',
  '/setup/portal/end',
  '/setup/portal/provider',
  '/setup/portal/service-provider',
  '/setup/portal/service-provider/metadata.xml',
  '/setup/portal/identity-provider',
  '/setup/portal/identity-provider/check',
  '/setup/portal/domains',
  '/setup/portal/domains/verify',
  '/setup/portal/domains/remove',
  '/setup/portal/test',
  '/setup/portal/test/result',
  '/setup/portal/activate',
  '/setup/portal/attempts',
  '/setup/portal/help',
];
/** The portal's pages that answer without a portal session: the link's own, and where a test sign-in lands (it asks for one). */
const PORTAL_WITHOUT_GUARD = ['/setup/link/{token}', '/setup/portal/test/result'];

/** Routes with anonymous metadata that are not on the allowlist, and allowlisted routes that are gone. */
function allowlistDifference(
  endpoints: readonly Endpoint[],
  allowlist: readonly string[],
): { unreviewed: string[]; missing: string[] } {
  const anonymous = endpoints.filter((e) => e.metadata?.kind === 'anonymous').map((e) => routeTemplate(e.path));
  return {
    unreviewed: anonymous.filter((path) => !allowlist.includes(path)),
    missing: allowlist.filter((path) => !anonymous.includes(path)),
  };
}

describe('anonymous endpoints', () => {
  describe('of this project as configured (config/appsettings.json)', () => {
    let running: RunningGatehouse;
    /** The reviewed allowlist for the posture configured: with the e-mail form where connections are on (`--authProvider connections`). */
    let reviewed: string[];
    before(async () => {
      running = await startGatehouseAsConfigured();
      const { Connections, ConnectionsDirectory } = running.gatehouse.settings.Authentication;
      const connectionsOn = ConnectionsDirectory !== '' || Object.keys(Connections).length > 0;
      // A project made with `--database postgres` has the administration API on, and its setup portal.
      const portalOn = running.gatehouse.settings.Administration.Enabled;
      reviewed = [
        ...REVIEWED_ANONYMOUS,
        ...(connectionsOn ? [REVIEWED_WITH_CONNECTIONS] : []),
        ...(portalOn ? REVIEWED_WITH_PORTAL : []),
      ];
    });
    after(() => running?.close());

    it('are exactly the reviewed allowlist', () => {
      expect(allowlistDifference(running.gatehouse.endpoints, reviewed)).to.deep.equal({
        unreviewed: [],
        missing: [],
      });
    });

    it('the check fails when someone adds an anonymous route without review', () => {
      const added: Endpoint = {
        method: 'GET',
        path: '/api/debug',
        metadata: allowAnonymous(),
        handler: () => undefined,
      };
      expect(allowlistDifference([...running.gatehouse.endpoints, added], reviewed).unreviewed).to.deep.equal([
        '/api/debug',
      ]);
    });

    it('the check fails when an allowlisted route loses its anonymous metadata', () => {
      const closed = running.gatehouse.endpoints.map((e) =>
        e.path === '/Account/Login' ? { ...e, metadata: undefined } : e,
      );
      expect(allowlistDifference(closed, reviewed).missing).to.deep.equal(['/Account/Login']);
    });
  });

  describe('with an external provider registered', () => {
    let running: RunningGatehouse;
    before(async () => {
      running = await startGatehouse({
        ProjectTemplate__Hosting__PublicOrigin: 'http://127.0.0.1:1',
        ProjectTemplate__Authentication__Providers__OpenIdConnect__Enabled: 'true',
        ProjectTemplate__Authentication__Providers__OpenIdConnect__Authority: 'http://127.0.0.1:1',
        ProjectTemplate__Authentication__Providers__OpenIdConnect__ClientId: 'gatehouse',
        ProjectTemplate__Authentication__Providers__OpenIdConnect__ClientSecret: 'secret-value-123',
      });
    });
    after(() => running.close());

    it('are still exactly the reviewed allowlist', () => {
      expect(allowlistDifference(running.gatehouse.endpoints, REVIEWED_ANONYMOUS)).to.deep.equal({
        unreviewed: [],
        missing: [],
      });
    });

    it('do not include the authentication middleware callback paths', () => {
      expect(running.gatehouse.identityProviders.map((p) => p.info.callbackPath)).to.deep.equal(['/signin-oidc']);
      const templates = running.gatehouse.endpoints.map((e) => routeTemplate(e.path).toLowerCase());
      expect(templates).not.to.include('/signin-oidc');
    });
  });

  describe('with connections on (a folder of them)', () => {
    let running: RunningGatehouse;
    let folder: string;
    before(async () => {
      folder = await mkdtemp(join(tmpdir(), 'gatehouse-connections-'));
      running = await startGatehouse({ ProjectTemplate__Authentication__ConnectionsDirectory: folder });
    });
    after(async () => {
      await running.close();
      await rm(folder, { recursive: true, force: true });
    });

    it('are the reviewed allowlist and the e-mail form, reviewed with connections', () => {
      expect(
        allowlistDifference(running.gatehouse.endpoints, [...REVIEWED_ANONYMOUS, REVIEWED_WITH_CONNECTIONS]),
      ).to.deep.equal({ unreviewed: [], missing: [] });
    });
  });

  describe('with the administration API on (its setup portal)', () => {
    let running: RunningGatehouse;
    let folder: string;
    before(async () => {
      folder = await mkdtemp(join(tmpdir(), 'gatehouse-connections-'));
      running = await startGatehouse({
        ProjectTemplate__Authentication__ConnectionsDirectory: folder,
        ProjectTemplate__Administration__Enabled: 'true',
      });
    });
    after(async () => {
      await running.close();
      await rm(folder, { recursive: true, force: true });
    });

    it('are the reviewed allowlist, the e-mail form and the setup portal, each reviewed with its feature', () => {
      const reviewed = [...REVIEWED_ANONYMOUS, REVIEWED_WITH_CONNECTIONS, ...REVIEWED_WITH_PORTAL];
      expect(allowlistDifference(running.gatehouse.endpoints, reviewed)).to.deep.equal({ unreviewed: [], missing: [] });
    });

    it("keep every portal page but the link's and the test's landing behind the portal's guard", () => {
      const unguarded = running.gatehouse.endpoints
        .filter((endpoint) => endpoint.path.startsWith('/setup/') && endpoint.authenticate === undefined)
        .map((endpoint) => routeTemplate(endpoint.path));
      expect([...new Set(unguarded)].sort()).to.deep.equal([...PORTAL_WITHOUT_GUARD].sort());
    });
  });
});
