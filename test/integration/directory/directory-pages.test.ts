import { expect } from 'chai';
import { RoutePaths, routedPaths } from '../../../src/adapters/koa/routes/route-paths.js';
import { isDirectoryPath } from '../../support/directory-paths.js';
import { signInThroughConnection, type SignedInPerson } from '../../support/connection-sign-in.js';
import { startDirectoryApp, type DirectoryApp } from '../../support/directory-app.js';
import { scimClient } from '../../support/scim-client.js';
import { PortalBrowser } from '../../support/setup-portal.js';
import { TestBrowser } from '../../support/oidc-app.js';
import { within } from '../../support/within.js';

const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const TOKEN = /gh_scim_[A-Za-z0-9_-]{43}/g;

/**
 * Directory sync as people see it, on a real PostgreSQL server: the setup portal's
 * directory step, where the organization's IT admin makes, tests and revokes its SCIM
 * tokens, and the sample application's page of the organization's people, read through the
 * `Directory` port and open to that organization's members only.
 */
describe("directory sync's pages: the portal's directory step and the people page (PostgreSQL, real OpenID provider)", function () {
  this.timeout(90_000);
  let directory: DirectoryApp;
  let admin: PortalBrowser;

  before(async () => {
    directory = await startDirectoryApp();
    admin = await PortalBrowser.open(directory, 'acme');
  });
  after(async () => {
    await directory?.close();
  });

  it('opens to anonymous requests only what a guard of its own keeps: the SCIM paths (a token) and the portal step (a portal session)', () => {
    const anonymous = directory.app.gatehouse.endpoints
      .filter((endpoint) => isDirectoryPath(endpoint.path) && endpoint.metadata?.kind === 'anonymous')
      .map((endpoint) => endpoint.path);
    // Reviewed with directory sync: each is behind its guard (scim-guard.ts, portal-guard.ts).
    expect([...new Set(anonymous)].sort()).to.deep.equal(
      [
        ...[...routedPaths].filter((path) => path.startsWith('/scim/')),
        RoutePaths.portalDirectory,
        RoutePaths.portalDirectoryTokens,
        RoutePaths.portalDirectoryRevoke,
      ].sort(),
    );
    for (const endpoint of directory.app.gatehouse.endpoints.filter((e) => e.metadata?.kind === 'anonymous')) {
      if (isDirectoryPath(endpoint.path)) expect(endpoint.authenticate, endpoint.path).to.be.a('function');
    }
  });

  describe("the setup portal's directory step", () => {
    let token: string;

    it('is linked from every portal page, and shows the base URL and no token yet', async () => {
      expect((await admin.page('/setup/portal')).text).to.include('href="/setup/portal/directory"');
      const page = await admin.page('/setup/portal/directory');
      expect(page.status).to.equal(200);
      expect(page.text).to.include(`${directory.app.url}/scim/v2/acme/`);
      expect(page.text).to.include('No token yet.');
      expect(page.text).to.match(/People received<\/dt><dd>0</);
    });

    it('is behind the portal session: no session, no page, no token', async () => {
      const stranger = new TestBrowser();
      expect((await stranger.get(`${directory.app.url}/setup/portal/directory`)).status).to.equal(401);
      const posted = await stranger.post(
        `${directory.app.url}/setup/portal/directory/tokens`,
        {},
        { origin: directory.app.url },
      );
      expect(posted.status).to.equal(401);
      // A form without the session's anti-forgery token changes nothing either.
      const forged = await admin.post(
        `${directory.app.url}/setup/portal/directory/tokens`,
        { _csrf: 'forged' },
        { origin: directory.app.url },
      );
      expect(forged.status).to.equal(400);
      const listed = (await (await directory.api('GET', '/api/admin/organizations/acme/scim-tokens')).json()) as {
        tokens: unknown[];
      };
      expect(listed.tokens).to.deep.equal([]);
    });

    it('makes a token shown once, which the directory then uses; the test shows what it pushed', async () => {
      const made = await admin.submit('/setup/portal/directory/tokens', {});
      expect(made.status).to.equal(200);
      const text = await made.text();
      const shown = text.match(TOKEN) ?? [];
      expect(shown).to.have.length(1);
      token = shown[0]!;
      expect(text).to.include('it is not shown again');
      // Listed by id from then on, never again in full.
      const again = await admin.page('/setup/portal/directory');
      expect(again.text.match(TOKEN)).to.equal(null);
      expect(again.text).to.match(/Last used <\/span>never/);

      const scim = scimClient(`${directory.app.url}/scim/v2/acme`, token);
      const created = await scim('POST', '/Users', {
        schemas: [USER_SCHEMA],
        userName: 'grace@example.test',
        displayName: 'Grace Hopper',
        emails: [{ value: 'grace@example.test', type: 'work', primary: true }],
        active: true,
      });
      expect(created.status).to.equal(201);
      // The token's use is written beside the answer, not before it.
      await within(5_000, 'the test shows the push', async () => {
        const tested = await admin.page('/setup/portal/directory');
        return (
          /People received<\/dt><dd>1</.test(tested.text) && !/Last reached [^<]*<\/dt><dd>not yet/.test(tested.text)
        );
      });
      // Made by the portal session: audited with its actor, the token's id and never its value.
      const audit = directory.app.logs.filter((line) => line.includes('"scim_token.created"'));
      expect(audit.at(-1)).to.match(/"actor":"portal:[^"]+"/);
      expect(directory.app.logs.join('\n')).not.to.include(token);
    });

    it('holds two tokens at most, and revokes one the directory can no longer use', async () => {
      const second = await admin.submit('/setup/portal/directory/tokens', {});
      const secondToken = (await second.text()).match(TOKEN)![0];
      const third = await admin.submit('/setup/portal/directory/tokens', {});
      expect(third.status).to.equal(409);
      expect((await third.text()).match(TOKEN)).to.equal(null);

      const listed = (await (await directory.api('GET', '/api/admin/organizations/acme/scim-tokens')).json()) as {
        tokens: Array<{ id: string }>;
      };
      expect(listed.tokens).to.have.length(2);
      const firstId = listed.tokens[0]!.id;
      const revoked = await admin.submit('/setup/portal/directory/tokens/revoke', { id: firstId });
      expect(revoked.status).to.equal(200);
      expect(await revoked.text()).to.include(`Token ${firstId} is revoked`);
      expect((await scimClient(`${directory.app.url}/scim/v2/acme`, token)('GET', '/Users')).status).to.equal(401);
      expect((await scimClient(`${directory.app.url}/scim/v2/acme`, secondToken)('GET', '/Users')).status).to.equal(
        200,
      );
      token = secondToken;
      scim = scimClient(`${directory.app.url}/scim/v2/acme`, secondToken);
      // An id the organization does not hold (revoked already, or made up) is not found, and nothing changes.
      for (const id of [firstId, 'made-up', '']) {
        expect((await admin.submit('/setup/portal/directory/tokens/revoke', { id })).status, id).to.equal(404);
      }
      const after = (await (await directory.api('GET', '/api/admin/organizations/acme/scim-tokens')).json()) as {
        tokens: unknown[];
      };
      expect(after.tokens).to.have.length(1);
    });
  });

  /** The organization's directory, pushing with the token the portal's step left. */
  let scim: ReturnType<typeof scimClient>;

  describe("the sample application's page of an organization's people", () => {
    let ada: SignedInPerson;
    before(async () => {
      for (const [userName, displayName, active] of [
        ['ada@example.test', 'Ada Lovelace', true],
        ['alan@example.test', 'Alan Turing', true],
        ['edsger@example.test', 'Edsger Dijkstra', false],
      ] as const) {
        const created = await scim('POST', '/Users', {
          schemas: [USER_SCHEMA],
          userName,
          displayName,
          emails: [{ value: userName, type: 'work', primary: true }],
          active,
        });
        expect(created.status).to.equal(201);
      }
      expect((await scim('POST', '/Groups', { displayName: 'Analytical Engines' })).status).to.equal(201);
      ada = await signInThroughConnection(directory.app.url, 'ada@example.test', 'admin');
    });

    it("shows the organization's people and groups to its member, the deactivated marked inactive", async () => {
      const home = await (await ada.browser.get(`${directory.app.url}/`)).text();
      expect(home).to.include('href="/Organizations/acme/People"');
      const page = await ada.browser.get(`${directory.app.url}/Organizations/acme/People`);
      expect(page.status).to.equal(200);
      const text = await page.text();
      for (const name of ['Ada Lovelace', 'Alan Turing', 'Edsger Dijkstra', 'Grace Hopper', 'Analytical Engines']) {
        expect(text, name).to.include(name);
      }
      expect(text).to.match(/Edsger Dijkstra<\/td>(?:(?!<\/tr>)[\s\S])*Inactive/);
      expect(text).to.include('4 people');
    });

    it('finds people by a part of a name or an address, letter case ignored', async () => {
      const page = await ada.browser.get(`${directory.app.url}/Organizations/acme/People?q=TURING`);
      const text = await page.text();
      expect(text).to.include('Alan Turing');
      expect(text).not.to.include('Ada Lovelace');
      expect(text).to.include('1 person matching');
      const byAddress = await (
        await ada.browser.get(`${directory.app.url}/Organizations/acme/People?q=edsger%40`)
      ).text();
      expect(byAddress).to.include('Edsger Dijkstra');
      expect(byAddress).not.to.include('Alan Turing');
    });

    it("refuses another organization's page to this member, and the page to anyone not signed in", async () => {
      const other = await ada.browser.get(`${directory.app.url}/Organizations/globex/People`);
      expect(other.status).to.equal(302);
      expect(other.headers.get('location')).to.match(/^\/Account\/AccessDenied/);
      expect(await other.text()).not.to.include('Ada Lovelace');
      const anonymous = await new TestBrowser().get(`${directory.app.url}/Organizations/acme/People`);
      expect([302, 401]).to.include(anonymous.status);
      expect(await anonymous.text()).not.to.include('Ada Lovelace');
    });
  });

  describe("the application's Directory port", () => {
    it("gives an organization's people, and its changes in order", async () => {
      const port = directory.app.gatehouse.directory;
      expect(port, 'gatehouse.directory with directory sync on').not.to.equal(undefined);
      const seen: string[] = [];
      const subscription = await port!.subscribe((change) => void seen.push(`${change.kind} ${change.resourceType}`), {
        organization: 'acme',
      });
      try {
        const made = await directory.newScimToken();
        const created = await scimClient(made.baseUrl, made.token)('POST', '/Users', {
          schemas: [USER_SCHEMA],
          userName: 'barbara@example.test',
          active: true,
        });
        expect(created.status).to.equal(201);
        const found = await port!.users('acme', {
          filter: { op: 'eq', attribute: 'userName', value: 'BARBARA@example.test' },
        });
        expect(found.resources.map((user) => user.attributes.userName)).to.deep.equal(['barbara@example.test']);
        const started = Date.now();
        while (!seen.includes('created User') && Date.now() - started < 8_000)
          await new Promise((r) => setTimeout(r, 50));
        expect(seen).to.deep.equal(['created User']);
      } finally {
        await subscription.stop();
      }
    });
  });
});
