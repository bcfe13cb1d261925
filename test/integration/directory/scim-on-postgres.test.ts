import { expect } from 'chai';
import { routedPaths } from '../../../src/adapters/koa/routes/route-paths.js';
import { connectionSignInAnswer, signInThroughConnection } from '../../support/connection-sign-in.js';
import { DIRECTORY_CLIENT_SECRET, startDirectoryApp, type DirectoryApp } from '../../support/directory-app.js';
import { isDirectoryPath } from '../../support/directory-paths.js';
import { SCIM_TYPE, scimClient, type ScimRequest } from '../../support/scim-client.js';
import { within } from '../../support/within.js';

/**
 * Directory sync through a whole Gatehouse on a real PostgreSQL server: the organization's
 * token made through the administration API, the SCIM requests its directory sends, and
 * what they do to a person signed in through the organization's connection (a real
 * OpenID provider): a group grants an organization role to the live session, a
 * deactivation signs the person out and refuses their next sign-in.
 */
describe('directory sync over SCIM, on PostgreSQL (real OpenID provider)', function () {
  this.timeout(90_000);
  let directory: DirectoryApp;
  let token: string;
  let baseUrl: string;
  let scim: ScimRequest;
  const api = (method: string, path: string, body?: unknown) => directory.api(method, path, body);

  before(async () => {
    // The directory's group `Acme Admins` (by name) makes its members the organization's administrators.
    directory = await startDirectoryApp({}, { 'Acme Admins': 'admin' });
  });
  after(async () => {
    await directory?.close();
  });

  it('mounts every path of directory sync', () => {
    const mounted = new Set(directory.app.gatehouse.endpoints.map((endpoint) => endpoint.path));
    const directoryPaths = [...routedPaths].filter(isDirectoryPath);
    expect(directoryPaths).to.have.length(15);
    for (const path of directoryPaths) expect(mounted.has(path), path).to.equal(true);
  });

  it('makes a token for an organization with a connection only, shown once, at most two at a time', async () => {
    expect((await api('POST', '/api/admin/organizations/globex/scim-tokens')).status).to.equal(404);
    const made = await api('POST', '/api/admin/organizations/acme/scim-tokens');
    expect(made.status).to.equal(201);
    const body = (await made.json()) as { id: string; token: string; baseUrl: string };
    expect(body.token).to.match(/^gh_scim_[A-Za-z0-9_-]{43}$/);
    expect(body.baseUrl).to.equal(`${directory.app.url}/scim/v2/acme/`);
    token = body.token;
    baseUrl = body.baseUrl.replace(/\/$/, '');
    scim = scimClient(baseUrl, token);
    const listed = (await (await api('GET', '/api/admin/organizations/acme/scim-tokens')).json()) as {
      tokens: Array<Record<string, unknown>>;
    };
    expect(listed.tokens.map((t) => t.id)).to.deep.equal([body.id]);
    expect(JSON.stringify(listed)).not.to.include(token);
    // A second for a rotation; a third is refused until one is revoked.
    const second = (await (await api('POST', '/api/admin/organizations/acme/scim-tokens')).json()) as { id: string };
    expect((await api('POST', '/api/admin/organizations/acme/scim-tokens')).status).to.equal(409);
    expect((await api('DELETE', `/api/admin/organizations/acme/scim-tokens/${second.id}`)).status).to.equal(204);
    expect((await api('DELETE', `/api/admin/organizations/acme/scim-tokens/${second.id}`)).status).to.equal(404);
  });

  it('answers 401 alike to no token, a wrong one, a revoked one and one used on another organization', async () => {
    const answers = [
      await fetch(`${baseUrl}/Users`),
      await scimClient(baseUrl, 'gh_scim_' + 'A'.repeat(43))('GET', '/Users'),
      await fetch(`${directory.app.url}/scim/v2/globex/Users`, { headers: { authorization: `Bearer ${token}` } }),
    ];
    for (const answer of answers) {
      expect(answer.status).to.equal(401);
      expect(answer.headers.get('www-authenticate')).to.equal('Bearer realm="SCIM"');
      expect(((await answer.json()) as { detail: string }).detail).to.equal(
        'A valid bearer token of this organization is required.',
      );
    }
  });

  it('provisions a user, finds it by filter, grants its group a role in a live session, and signs it out when deactivated', async () => {
    const created = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'ada@example.test',
      externalId: 'admin',
      name: { givenName: 'Ada', familyName: 'Admin' },
      emails: [{ value: 'ada@example.test', type: 'work', primary: true }],
      active: true,
    });
    expect(created.status).to.equal(201);
    expect(created.headers.get('content-type')).to.include(SCIM_TYPE);
    expect(created.headers.get('etag')).to.equal('W/"1"');
    const user = (await created.json()) as { id: string; meta: { location: string } };
    expect(user.meta.location).to.equal(`${baseUrl}/Users/${user.id}`);
    // Okta's first question: is this userName taken? (letter case ignored)
    const found = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "ADA@example.test"')}`);
    expect(((await found.json()) as { totalResults: number }).totalResults).to.equal(1);
    expect((await scim('POST', '/Users', { userName: 'Ada@Example.test' })).status).to.equal(409);

    // Ada signs in through the connection: no organization administrator yet.
    const ada = await signInThroughConnection(directory.app.url, 'ada@example.test', 'admin');
    const adminPage = () =>
      ada.browser.get(`${directory.app.url}/api/organizations/acme/app-info/admin`, { accept: 'application/json' });
    expect((await adminPage()).status).to.equal(403);

    // The directory pushes the group with Ada in it: her live session becomes the organization's administrator.
    const group = await scim('POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Acme Admins',
      members: [{ value: user.id }],
    });
    expect(group.status).to.equal(201);
    await within(5_000, 'the session gains the role', async () => (await adminPage()).status === 200);

    // Entra ID deactivates her: "Replace" in its letter case, the boolean as text.
    const deactivated = await scim('PATCH', `/Users/${user.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(deactivated.status).to.equal(200);
    await ada.signedOut();
    expect(directory.app.logs.join('\n')).to.include('"cause":"directory_deprovisioned"');

    // Her next sign-in is refused until the directory reactivates her.
    const refused = await connectionSignInAnswer(directory.app.url, 'ada@example.test', 'admin');
    expect(refused.status).to.equal(403);
    expect(await refused.text()).to.include('turned off');

    const logs = directory.app.logs.join('\n');
    expect(logs).not.to.include(token);
    expect(logs).not.to.include(DIRECTORY_CLIENT_SECRET);
  });
});
