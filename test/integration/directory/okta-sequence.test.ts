import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import {
  connectionSignInAnswer,
  signInThroughConnection,
  type SignedInPerson,
} from '../../support/connection-sign-in.js';
import { startDirectoryApp, type DirectoryApp } from '../../support/directory-app.js';
import { filterQuery, scimClient, type ScimRequest } from '../../support/scim-client.js';
import { within } from '../../support/within.js';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** An answer, read loosely as a directory reads it. */
type Json = Record<string, any>;
const json = async (response: Response): Promise<Json> => (await response.json()) as Json;

/**
 * The requests Okta sends, step by step and in the shapes its "SCIM 2.0 Protocol Reference"
 * documents (the bodies as written there, with Gatehouse's ids and the demo provider's
 * people), against a whole Gatehouse on PostgreSQL, with the answers Okta relies on
 * asserted: the connection test, the userName check before a create, the create (a
 * password and groups pushed along), reads, a whole-user PUT, deactivation by PATCH (OIN
 * integrations) and by PUT (integrations made with the App Integration Wizard), group push
 * (create, rename, members removed by value filter and added, a full push, a PUT, delete),
 * and an import paging through every user. Each deactivation ends the person's live session.
 */
describe("Okta's SCIM requests, in sequence (PostgreSQL, real OpenID provider)", function () {
  this.timeout(120_000);
  let directory: DirectoryApp;
  let scim: ScimRequest;
  let ada: Json;
  let uma: Json;
  let adaSession: SignedInPerson;
  let group: Json;

  before(async () => {
    directory = await startDirectoryApp({}, { 'Acme Admins': 'admin' });
    const { token, baseUrl } = await directory.newScimToken();
    scim = scimClient(baseUrl, token);
  });
  after(async () => {
    await directory?.close();
  });

  const adminPageOf = (person: SignedInPerson) =>
    person.browser.get(`${directory.app.url}/api/organizations/acme/app-info/admin`, { accept: 'application/json' });

  it('tests the connection: the first users and groups, as ListResponses with integers', async () => {
    for (const path of ['/Users?startIndex=1&count=2', '/Groups?startIndex=1&count=100']) {
      const answer = await scim('GET', path);
      expect(answer.status, path).to.equal(200);
      expect(await json(answer)).to.deep.equal({
        schemas: [LIST],
        totalResults: 0,
        startIndex: 1,
        itemsPerPage: 0,
        Resources: [],
      });
    }
  });

  it('checks the userName before a create, creates the user, and finds it the next time', async () => {
    const lookup = `/Users?${filterQuery('userName eq "ada@example.test"')}&startIndex=1&count=100`;
    expect(lookup).to.include('userName%20eq%20%22ada%40example.test%22');
    expect(await json(await scim('GET', lookup))).to.deep.include({ totalResults: 0, itemsPerPage: 0, Resources: [] });

    const created = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'ada@example.test',
      name: { givenName: 'Ada', familyName: 'Admin' },
      emails: [{ primary: true, value: 'ada@example.test', type: 'work' }],
      displayName: 'Ada Admin',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: 'SENTINEL-okta-password-1mz050nq',
      active: true,
    });
    expect(created.status).to.equal(201);
    ada = await json(created);
    expect(ada).to.deep.include({
      schemas: [USER],
      userName: 'ada@example.test',
      name: { givenName: 'Ada', familyName: 'Admin' },
      emails: [{ primary: true, value: 'ada@example.test', type: 'work' }],
      displayName: 'Ada Admin',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      active: true,
    });
    expect(ada.id).to.be.a('string');
    expect(ada.meta.resourceType).to.equal('User');
    expect(ada).not.to.have.property('password');
    expect(directory.app.logs.join('\n')).not.to.include('SENTINEL-okta-password');

    // Okta stores the id the lookup returns; a second create of the same person is a conflict it stops on.
    const found = await json(await scim('GET', lookup));
    expect(found).to.deep.include({ totalResults: 1, startIndex: 1, itemsPerPage: 1 });
    expect(found.Resources[0].id).to.equal(ada.id);
    const again = await scim('POST', '/Users', { schemas: [USER], userName: 'ada@example.test', active: true });
    expect(again.status).to.equal(409);
    expect(await json(again)).to.deep.include({ schemas: [ERROR], status: '409', scimType: 'uniqueness' });
  });

  it('reads the user by id, replaces it whole with PUT (id, meta and groups sent back), and keeps the session', async () => {
    const read = await scim('GET', `/Users/${ada.id}`);
    expect(read.status).to.equal(200);
    expect((await json(read)).userName).to.equal('ada@example.test');

    adaSession = await signInThroughConnection(directory.app.url, 'ada@example.test', 'admin');
    const replaced = await scim('PUT', `/Users/${ada.id}`, {
      schemas: [USER],
      id: ada.id,
      userName: 'ada@example.test',
      name: { givenName: 'Ada', middleName: 'Excited', familyName: 'Admin' },
      emails: [{ primary: true, value: 'ada@example.test', type: 'work', display: 'ada@example.test' }],
      active: true,
      groups: [],
      meta: { resourceType: 'User' },
    });
    expect(replaced.status).to.equal(200);
    const body = await json(replaced);
    expect(body.name).to.deep.equal({ givenName: 'Ada', middleName: 'Excited', familyName: 'Admin' });
    expect(body.emails).to.deep.equal([
      { primary: true, value: 'ada@example.test', type: 'work', display: 'ada@example.test' },
    ]);
    // A PUT replaces: what Okta left out is gone.
    expect(body).not.to.have.property('displayName');
    expect(body).not.to.have.property('externalId');
    expect((await adaSession.appInfo()).status, 'still signed in').to.equal(200);
  });

  it("pushes a group, renames it as Okta does before each membership change, and adds and removes members by value filter: the live session's roles follow", async () => {
    const created = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Acme Admins', members: [] });
    expect(created.status).to.equal(201);
    group = await json(created);
    expect(group).to.deep.include({ schemas: [GROUP], displayName: 'Acme Admins', members: [] });
    expect(group.meta.resourceType).to.equal('Group');

    const rename = {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { id: group.id, displayName: 'Acme Admins' } }],
    };
    expect((await scim('PATCH', `/Groups/${group.id}`, rename)).status).to.equal(204);
    const membership = await scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        // Someone Okta believes is a member and is not: removing nobody is no error.
        { op: 'remove', path: `members[value eq "${randomUUID()}"]` },
        { op: 'add', path: 'members', value: [{ value: ada.id, display: 'ada@example.test' }] },
      ],
    });
    expect(membership.status).to.equal(204);
    await within(5_000, 'the session gains the role', async () => (await adminPageOf(adaSession)).status === 200);
    const read = await json(await scim('GET', `/Groups/${group.id}`));
    expect(read.members).to.deep.equal([{ value: ada.id, display: 'ada@example.test' }]);

    expect((await scim('PATCH', `/Groups/${group.id}`, rename)).status).to.equal(204);
    const removed = await scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'remove', path: `members[value eq "${ada.id}"]` }],
    });
    expect(removed.status).to.equal(204);
    await within(5_000, 'the session loses the role', async () => (await adminPageOf(adaSession)).status === 403);
  });

  it('deactivates with PATCH replace {active: false}: the session ends, the user stays readable, sign-in is refused until reactivated', async () => {
    const deactivated = await scim('PATCH', `/Users/${ada.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(deactivated.status).to.equal(200);
    expect((await json(deactivated)).active).to.equal(false);
    await adaSession.signedOut();
    expect((await json(await scim('GET', `/Users/${ada.id}`))).active).to.equal(false);
    expect((await connectionSignInAnswer(directory.app.url, 'ada@example.test', 'admin')).status).to.equal(403);

    const activated = await scim('PATCH', `/Users/${ada.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: true } }],
    });
    expect(activated.status).to.equal(200);
    adaSession = await signInThroughConnection(directory.app.url, 'ada@example.test', 'admin');
  });

  it('deactivates with a whole-user PUT of active: false (App Integration Wizard integrations): the session ends', async () => {
    const created = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'uma@example.test',
      name: { givenName: 'Uma', familyName: 'User' },
      emails: [{ primary: true, value: 'uma@example.test', type: 'work' }],
      displayName: 'Uma User',
      externalId: '00u1dhhb1fkIGP7RL1d8',
      groups: [],
      active: true,
    });
    expect(created.status).to.equal(201);
    uma = await json(created);
    const umaSession = await signInThroughConnection(directory.app.url, 'uma@example.test', 'user');
    const replaced = await scim('PUT', `/Users/${uma.id}`, {
      ...uma,
      groups: [],
      active: false,
    });
    expect(replaced.status).to.equal(200);
    expect((await json(replaced)).active).to.equal(false);
    await umaSession.signedOut();
    expect((await adaSession.appInfo()).status, "Ada's session is not touched").to.equal(200);
  });

  it('pushes the whole membership with replace, replaces the group with PUT, and deletes it', async () => {
    const pushed = await scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        {
          op: 'replace',
          path: 'members',
          value: [
            { value: ada.id, display: 'ada@example.test' },
            { value: uma.id, display: 'uma@example.test' },
          ],
        },
      ],
    });
    expect(pushed.status).to.equal(204);
    const members = (await json(await scim('GET', `/Groups/${group.id}`))).members as Json[];
    expect(members.map((member) => member.value).sort()).to.deep.equal([ada.id, uma.id].sort());
    await within(5_000, 'Ada gains the role', async () => (await adminPageOf(adaSession)).status === 200);

    // A group renamed away from the mapped name grants nothing any more.
    const replaced = await scim('PUT', `/Groups/${group.id}`, {
      schemas: [GROUP],
      id: group.id,
      displayName: 'Test SCIMv20',
      members: [{ value: ada.id, display: 'ada@example.test' }],
    });
    expect(replaced.status).to.equal(200);
    expect(await json(replaced)).to.deep.include({
      displayName: 'Test SCIMv20',
      members: [{ value: ada.id, display: 'ada@example.test' }],
    });
    await within(5_000, 'Ada loses the role', async () => (await adminPageOf(adaSession)).status === 403);

    const listed = await json(await scim('GET', '/Groups?startIndex=1&count=100'));
    expect(listed.totalResults).to.equal(1);
    expect((await scim('DELETE', `/Groups/${group.id}`)).status).to.equal(204);
    const gone = await scim('GET', `/Groups/${group.id}`);
    expect(gone.status).to.equal(404);
    expect(await json(gone)).to.deep.include({ schemas: [ERROR], status: '404' });
  });

  it('imports every user page by page (count=100, startIndex+100), each once, in the same order every time', async () => {
    const more = Array.from({ length: 203 }, (_, i) => `person-${String(i).padStart(3, '0')}@example.test`);
    for (let i = 0; i < more.length; i += 10) {
      const batch = more.slice(i, i + 10).map((userName) => scim('POST', '/Users', { schemas: [USER], userName }));
      for (const answer of await Promise.all(batch)) expect(answer.status).to.equal(201);
    }
    const importAll = async () => {
      const ids: string[] = [];
      let startIndex = 1;
      for (;;) {
        const page = await json(await scim('GET', `/Users?startIndex=${startIndex}&count=100`));
        expect(page.totalResults).to.equal(more.length + 2);
        expect(page.startIndex).to.equal(startIndex);
        expect(page.itemsPerPage).to.equal(page.Resources.length);
        ids.push(...(page.Resources as Json[]).map((user) => user.id as string));
        if (startIndex + 100 > page.totalResults) return ids;
        startIndex += 100;
      }
    };
    const first = await importAll();
    expect(first).to.have.length(more.length + 2);
    expect(new Set(first).size).to.equal(first.length);
    expect(first).to.include.members([ada.id, uma.id]);
    expect(await importAll()).to.deep.equal(first);
  });
});
