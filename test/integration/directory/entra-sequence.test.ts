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
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** An answer, read loosely as a directory reads it. */
type Json = Record<string, any>;
const json = async (response: Response): Promise<Json> => (await response.json()) as Json;
const patch = (...operations: unknown[]) => ({ schemas: [PATCH_OP], Operations: operations });

/**
 * The requests Microsoft Entra ID's provisioning service sends, step by step and in the
 * shapes Microsoft documents ("Tutorial: Develop and plan provisioning for a SCIM endpoint",
 * its request and response examples; "Known issues and resolutions with SCIM 2.0 protocol
 * compliance", the requests with and without the `aadOptscim062020` flag), against a whole
 * Gatehouse on PostgreSQL: the connection test with a random GUID, matching by userName,
 * externalId and work e-mail, the create with the enterprise extension, PATCH with
 * "Replace"/"Add"/"Remove" in either letter case, "True"/"False" as text, a path-less value
 * with dotted and URN-qualified keys, `emails[type eq "work"].value`, the manager, groups
 * read without members, members added and removed in batches, disable and delete. Each
 * disable and the delete end the person's live session.
 */
describe("Microsoft Entra ID's SCIM requests, in sequence (PostgreSQL, real OpenID provider)", function () {
  this.timeout(120_000);
  let directory: DirectoryApp;
  let scim: ScimRequest;
  let baseUrl: string;
  let uma: Json;
  let joy: Json;
  let umaSession: SignedInPerson;
  let group: Json;
  const umaObjectId = randomUUID();

  before(async () => {
    directory = await startDirectoryApp({}, { 'Acme Admins': 'admin' });
    const made = await directory.newScimToken();
    baseUrl = made.baseUrl;
    scim = scimClient(baseUrl, made.token);
  });
  after(async () => {
    await directory?.close();
  });

  const adminPageOf = (person: SignedInPerson) =>
    person.browser.get(`${directory.app.url}/api/organizations/acme/app-info/admin`, { accept: 'application/json' });
  const users = async (filter: string, more = '') => json(await scim('GET', `/Users?${filterQuery(filter)}${more}`));

  it('tests the connection with a random GUID as userName (an empty ListResponse), and discovers the schemas', async () => {
    const answer = await scim('GET', `/Users?${filterQuery(`userName eq "${randomUUID()}"`)}`);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.include('application/scim+json');
    expect(await json(answer)).to.deep.include({ schemas: [LIST], totalResults: 0, startIndex: 1, Resources: [] });

    const schemas = await json(await scim('GET', '/Schemas'));
    expect(schemas.schemas).to.deep.equal([LIST]);
    expect((schemas.Resources as Json[]).map((schema) => schema.id)).to.have.members([USER, ENTERPRISE, GROUP]);
  });

  it('matches by userName and externalId (none yet), then creates the user with the enterprise extension', async () => {
    expect(await users('userName eq "uma@example.test"')).to.deep.include({ totalResults: 0, Resources: [] });
    expect(await users(`externalId eq "${umaObjectId}"`)).to.deep.include({ totalResults: 0, Resources: [] });

    const created = await scim('POST', '/Users', {
      schemas: [USER, ENTERPRISE],
      externalId: umaObjectId,
      userName: 'uma@example.test',
      active: true,
      emails: [{ primary: true, type: 'work', value: 'uma@example.test' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'Uma User', familyName: 'User', givenName: 'Uma' },
      roles: [],
      [ENTERPRISE]: { department: 'Research', employeeNumber: '100009' },
    });
    expect(created.status).to.equal(201);
    uma = await json(created);
    expect(uma).to.deep.include({
      schemas: [USER, ENTERPRISE],
      externalId: umaObjectId,
      userName: 'uma@example.test',
      active: true,
      emails: [{ primary: true, type: 'work', value: 'uma@example.test' }],
      name: { formatted: 'Uma User', familyName: 'User', givenName: 'Uma' },
      [ENTERPRISE]: { department: 'Research', employeeNumber: '100009' },
    });
    expect(uma.id).to.be.a('string');

    // The tutorial's other create: nulls for what the tenant has no value of, and the extension's URN misspelt.
    const second = await scim('POST', '/Users', {
      schemas: [USER, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0User'],
      externalId: 'jyoung',
      userName: 'jyoung@example.test',
      active: true,
      addresses: null,
      displayName: 'Joy Young',
      emails: [{ type: 'work', value: 'jyoung@example.test', primary: true }],
      meta: { resourceType: 'User' },
      name: { familyName: 'Young', givenName: 'Joy' },
      phoneNumbers: null,
      preferredLanguage: null,
      title: null,
      department: null,
      manager: null,
    });
    expect(second.status).to.equal(201);
    joy = await json(second);
    expect(joy).not.to.have.property('phoneNumbers');
    expect(joy).not.to.have.property('title');
  });

  it('reads the user by id (404 as a SCIM error when unknown), and finds it by userName, externalId and work e-mail', async () => {
    expect((await json(await scim('GET', `/Users/${uma.id}`))).userName).to.equal('uma@example.test');
    const missing = await scim('GET', `/Users/${randomUUID()}`);
    expect(missing.status).to.equal(404);
    expect(await json(missing)).to.deep.include({ schemas: [ERROR], status: '404' });

    for (const filter of [
      'userName eq "uma@example.test"',
      `externalId eq "${umaObjectId}"`,
      'emails[type eq "work"].value eq "uma@example.test"',
    ]) {
      const found = await users(filter);
      expect(found.totalResults, filter).to.equal(1);
      expect(found.Resources[0].id, filter).to.equal(uma.id);
    }
    expect((await users('emails[type eq "work"].value eq "jyoung@example.test"')).Resources[0].id).to.equal(joy.id);
  });

  it('updates by PATCH: "Replace" of the work e-mail by filter path and of name.familyName, then of userName', async () => {
    umaSession = await signInThroughConnection(directory.app.url, 'uma@example.test', 'user');
    const multi = await scim(
      'PATCH',
      `/Users/${uma.id}`,
      patch(
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'uma.user@example.test' },
        { op: 'Replace', path: 'name.familyName', value: 'Updated' },
      ),
    );
    expect(multi.status).to.equal(200);
    const body = await json(multi);
    expect(body.emails).to.deep.equal([{ value: 'uma.user@example.test', type: 'work', primary: true }]);
    expect(body.name.familyName).to.equal('Updated');

    const single = await scim(
      'PATCH',
      `/Users/${uma.id}`,
      patch({ op: 'Replace', path: 'userName', value: 'uma.user@example.test' }),
    );
    expect(single.status).to.equal(200);
    expect((await json(single)).userName).to.equal('uma.user@example.test');
    expect((await umaSession.appInfo()).status, 'still signed in').to.equal(200);
  });

  it('updates as the aadOptscim062020 flag writes it: a path-less "replace" with dotted and URN-qualified keys, "add" of nickName', async () => {
    const flagged = await scim(
      'PATCH',
      `/Users/${uma.id}`,
      patch(
        { op: 'replace', path: 'emails[type eq "work"].value', value: 'uma@example.test' },
        {
          op: 'replace',
          value: {
            displayName: 'Uma U.',
            'name.givenName': 'Umeko',
            'name.familyName': 'User',
            [`${ENTERPRISE}:employeeNumber`]: '100010',
          },
        },
      ),
    );
    expect(flagged.status).to.equal(200);
    const body = await json(flagged);
    expect(body).to.deep.include({ displayName: 'Uma U.' });
    expect(body.emails).to.deep.equal([{ value: 'uma@example.test', type: 'work', primary: true }]);
    expect(body.name).to.deep.include({ givenName: 'Umeko', familyName: 'User' });
    expect(body[ENTERPRISE]).to.deep.equal({ department: 'Research', employeeNumber: '100010' });

    for (const op of ['Add', 'add']) {
      const added = await scim('PATCH', `/Users/${uma.id}`, patch({ op, path: 'nickName', value: `Babs-${op}` }));
      expect(added.status, op).to.equal(200);
      expect((await json(added)).nickName).to.equal(`Babs-${op}`);
    }
    // A path-less value under "Add" with a filter path as key. The work e-mail is again the one
    // her provider's sign-ins carry: a sign-in is matched by what the directory holds now.
    const unflagged = await scim(
      'PATCH',
      `/Users/${uma.id}`,
      patch({ op: 'Add', value: { 'emails[type eq "work"].value': 'uma@example.test', title: 'Engineer' } }),
    );
    expect(unflagged.status).to.equal(200);
    expect(await json(unflagged)).to.deep.include({
      title: 'Engineer',
      emails: [{ value: 'uma@example.test', type: 'work', primary: true }],
    });
  });

  it('sets the manager as the tutorial and the default mapping send it, and answers its manager check', async () => {
    const tutorial = await scim(
      'PATCH',
      `/Users/${uma.id}`,
      patch({ op: 'Add', path: 'manager', value: [{ $ref: `${baseUrl}/Users/${joy.id}`, value: joy.id }] }),
    );
    expect(tutorial.status).to.equal(200);
    expect((await json(tutorial))[ENTERPRISE].manager).to.deep.equal({ value: joy.id });

    // "Query the value of a reference attribute to be updated": id and manager, the id alone asked for.
    const checked = await users(`id eq "${uma.id}" and manager eq "${joy.id}"`, '&attributes=id');
    expect(checked.totalResults).to.equal(1);
    expect(checked.Resources[0].id).to.equal(uma.id);
    expect(checked.Resources[0]).not.to.have.any.keys('userName', 'emails', ENTERPRISE);
    expect((await users(`id eq "${uma.id}" and manager eq "${uma.id}"`)).totalResults).to.equal(0);

    const mapped = await scim(
      'PATCH',
      `/Users/${uma.id}`,
      patch({ op: 'Replace', path: `${ENTERPRISE}:manager`, value: uma.id }),
    );
    expect((await json(mapped))[ENTERPRISE].manager).to.deep.equal({ value: uma.id });
    const removed = await scim('PATCH', `/Users/${uma.id}`, patch({ op: 'Remove', path: `${ENTERPRISE}:manager` }));
    expect((await json(removed))[ENTERPRISE]).not.to.have.property('manager');
  });

  it('provisions a group without members, reads it without members, renames it, and adds and removes members in batches', async () => {
    const created = await scim('POST', '/Groups', {
      schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'Acme Admins (staging)',
      meta: { resourceType: 'Group' },
    });
    expect(created.status).to.equal(201);
    group = await json(created);
    expect(group).to.deep.include({
      schemas: [GROUP],
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'Acme Admins (staging)',
      members: [],
    });

    const read = await scim('GET', `/Groups/${group.id}?excludedAttributes=members`);
    expect(read.status).to.equal(200);
    expect(await json(read)).not.to.have.property('members');
    const found = await json(
      await scim('GET', `/Groups?excludedAttributes=members&${filterQuery('displayName eq "Acme Admins (staging)"')}`),
    );
    expect(found.totalResults).to.equal(1);
    expect(found.Resources[0]).to.include({ id: group.id }).and.not.to.have.property('members');

    const renamed = await scim(
      'PATCH',
      `/Groups/${group.id}`,
      patch({ op: 'Replace', path: 'displayName', value: 'Acme Admins' }),
    );
    expect(renamed.status).to.equal(204);

    const added = await scim(
      'PATCH',
      `/Groups/${group.id}`,
      patch({
        op: 'Add',
        path: 'members',
        value: [
          { $ref: null, value: uma.id },
          { $ref: null, value: joy.id },
        ],
      }),
    );
    expect(added.status).to.equal(204);
    await within(5_000, 'Uma gains the role', async () => (await adminPageOf(umaSession)).status === 200);

    const removed = await scim(
      'PATCH',
      `/Groups/${group.id}`,
      patch({ op: 'Remove', path: 'members', value: [{ $ref: null, value: uma.id }] }),
    );
    expect(removed.status).to.equal(204);
    await within(5_000, 'Uma loses the role', async () => (await adminPageOf(umaSession)).status === 403);
    const flagged = await scim(
      'PATCH',
      `/Groups/${group.id}`,
      patch({ op: 'remove', path: `members[value eq "${joy.id}"]` }),
    );
    expect(flagged.status).to.equal(204);
    expect((await json(await scim('GET', `/Groups/${group.id}`))).members).to.deep.equal([]);

    // The compliance page's own member id, none of ours: removing it removes nobody; adding it is refused.
    expect(
      (
        await scim(
          'PATCH',
          `/Groups/${group.id}`,
          patch({ op: 'Remove', path: 'members', value: [{ value: 'u1091' }] }),
        )
      ).status,
    ).to.equal(204);
    const unknown = await scim(
      'PATCH',
      `/Groups/${group.id}`,
      patch({ op: 'Add', path: 'members', value: [{ value: 'u1091' }] }),
    );
    expect(unknown.status).to.equal(400);
    expect(await json(unknown)).to.deep.include({ schemas: [ERROR], status: '400', scimType: 'invalidValue' });
  });

  it('updates many memberships in one PATCH', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 60; i += 10) {
      const batch = Array.from({ length: 10 }, (_, j) =>
        scim('POST', '/Users', { schemas: [USER], userName: `member-${i + j}@example.test`, active: true }),
      );
      for (const answer of await Promise.all(batch)) ids.push((await json(answer)).id as string);
    }
    const added = await scim(
      'PATCH',
      `/Groups/${group.id}`,
      patch({ op: 'Add', path: 'members', value: ids.map((value) => ({ $ref: null, value })) }),
    );
    expect(added.status).to.equal(204);
    const members = (await json(await scim('GET', `/Groups/${group.id}`))).members as Json[];
    expect(members.map((member) => member.value)).to.have.members(ids);
    const removed = await scim(
      'PATCH',
      `/Groups/${group.id}`,
      patch({ op: 'Remove', path: 'members', value: ids.slice(0, 30).map((value) => ({ value })) }),
    );
    expect(removed.status).to.equal(204);
    expect((await json(await scim('GET', `/Groups/${group.id}`))).members).to.have.length(30);
  });

  it('disables with "Replace" of active to "False" and, flagged, to false: the session ends each time; "True" enables again', async () => {
    for (const value of ['False', false]) {
      const op = value === false ? 'replace' : 'Replace';
      const disabled = await scim('PATCH', `/Users/${uma.id}`, patch({ op, path: 'active', value }));
      expect(disabled.status).to.equal(200);
      expect((await json(disabled)).active).to.equal(false);
      await umaSession.signedOut();
      // Still returned while disabled: only a delete makes a user go.
      expect((await users(`externalId eq "${umaObjectId}"`)).Resources[0].active).to.equal(false);
      expect((await connectionSignInAnswer(directory.app.url, 'uma@example.test', 'user')).status).to.equal(403);

      const enabled = await scim('PATCH', `/Users/${uma.id}`, patch({ op: 'Replace', path: 'active', value: 'True' }));
      expect((await json(enabled)).active).to.equal(true);
      umaSession = await signInThroughConnection(directory.app.url, 'uma@example.test', 'user');
    }
  });

  it('deletes the user: the session ends, the user is gone, the next sign-in is refused; then deletes the group', async () => {
    expect((await scim('DELETE', `/Users/${uma.id}`)).status).to.equal(204);
    await umaSession.signedOut();
    expect((await scim('GET', `/Users/${uma.id}`)).status).to.equal(404);
    expect((await users('userName eq "uma.user@example.test"')).totalResults).to.equal(0);
    expect((await connectionSignInAnswer(directory.app.url, 'uma@example.test', 'user')).status).to.equal(403);

    expect((await scim('DELETE', `/Groups/${group.id}`)).status).to.equal(204);
    expect((await scim('GET', `/Groups/${group.id}`)).status).to.equal(404);
  });
});
