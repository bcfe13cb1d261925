/**
 * SCIM 2.0 compliance of the whole service, checked by a client not written from our code:
 * SCIMMY (npm `scimmy`, a devDependency), a full implementation of RFC 7643 and RFC 7644 of
 * its own: the User, EnterpriseUser and Group schemas, the ServiceProviderConfig and
 * ResourceType schemas, the ListResponse, Error and PatchOp messages, and a filter parser
 * with a matcher. Chosen because it is the one package on the registry that covers the
 * schemas, the messages and the filters together, independently of Gatehouse (its schemas
 * are its authors' reading of RFC 7643; our server reads its own tables), has no
 * dependencies, is MIT-licensed, maintained (1.3.x in 2026, about 80,000 downloads a month)
 * and tested by its authors against Entra ID. The others are one part each (`scim2-parse-filter`
 * and `scim-query-filter-parser` parse filters, `scim-patch` applies PATCH), and no
 * maintained SCIM client package exists there.
 *
 * What it checks here: every resource the service returns from create, read, list,
 * replace and PATCH is coerced by SCIMMY's schema for it and must come out unchanged
 * (nothing missing, of the wrong type, or unknown to the schema); every list is a
 * ListResponse and every refusal an Error message whose status and scimType go together;
 * the discovery endpoints parse as SCIMMY's ServiceProviderConfig and ResourceType, and the
 * schemas advertised agree with SCIMMY's on each attribute's type; filters are built and
 * parsed by SCIMMY, sent, and must select what SCIMMY's own matcher selects; PATCH bodies are
 * SCIMMY PatchOp messages, and the server's result must be what SCIMMY's own apply gives.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import SCIMMY from 'scimmy';
import { startDirectoryApp, type DirectoryApp } from '../../support/directory-app.js';
import { filterQuery, scimClient, type ScimRequest } from '../../support/scim-client.js';

const { Schemas, Messages, Types } = SCIMMY;
const ENTERPRISE = Schemas.EnterpriseUser.id;

/** An answer, read loosely as a client reads it before checking it. */
type Json = Record<string, any>;
const json = async (response: Response): Promise<Json> => (await response.json()) as Json;
/** A value as JSON carries it: SCIMMY's coerced resources hold proxies and getters. */
const plain = (value: unknown): Json => JSON.parse(JSON.stringify(value)) as Json;

/** The resource coerced by SCIMMY's schema as a service provider's answer: it must come out as it went in. */
function expectConforms(definition: InstanceType<typeof Types.SchemaDefinition>, resource: Json): void {
  const coerced = plain(definition.coerce(resource, 'out'));
  expect(coerced, `${definition.name} ${resource.id}`).to.deep.equal(resource);
  expect(resource.schemas).to.include(definition.id);
}

const expectUser = (resource: Json) => {
  expectConforms(Schemas.User.definition, resource);
  expect(resource.schemas.includes(ENTERPRISE), 'the extension named when present').to.equal(ENTERPRISE in resource);
};
const expectGroup = (resource: Json) => expectConforms(Schemas.Group.definition, resource);

/** A ListResponse message (RFC 7644 3.4.2) whose numbers are integers, each resource checked by `each`. */
function expectList(body: Json, each: (resource: Json) => void): Json[] {
  const list = new Messages.ListResponse(body as never);
  expect(body.schemas).to.deep.equal([Messages.ListResponse.id]);
  for (const key of ['totalResults', 'startIndex', 'itemsPerPage'] as const) {
    expect(Number.isInteger(body[key]), key).to.equal(true);
  }
  expect(list.itemsPerPage).to.equal(body.Resources.length);
  for (const resource of body.Resources as Json[]) each(resource);
  return body.Resources as Json[];
}

/** An Error message (RFC 7644 3.12) of `status`, and `scimType` when given: SCIMMY refuses a pair the RFC does not make. */
async function expectError(answer: Response, status: number, scimType?: string): Promise<void> {
  expect(answer.status).to.equal(status);
  expect(answer.headers.get('content-type')).to.include('application/scim+json');
  const body = await json(answer);
  expect(body.schemas).to.deep.equal([Messages.Error.id]);
  expect(body.status).to.equal(String(status));
  expect(body.scimType).to.equal(scimType);
  const { schemas: _schemas, ...details } = body;
  expect(() => new Messages.Error({ ...details, status: Number(body.status) } as never)).not.to.throw();
}

const patchOp = (...operations: Array<{ op: 'add' | 'remove' | 'replace'; path?: string; value?: unknown }>) =>
  new Messages.PatchOp({ schemas: [Messages.PatchOp.id], Operations: operations });

/** What SCIMMY's own PatchOp gives on `resource` (as the service returned it), without `meta`. */
async function appliedBySCIMMY(
  schema: typeof Schemas.User | typeof Schemas.Group,
  resource: Json,
  patch: InstanceType<typeof Messages.PatchOp>,
): Promise<Json> {
  const { meta: _meta, ...result } = plain(await patch.apply(new schema(resource, 'out')));
  return result;
}

const withoutMeta = ({ meta: _meta, ...rest }: Json): Json => rest;

describe('SCIM compliance, checked by an independent SCIM library (SCIMMY), on PostgreSQL', function () {
  this.timeout(120_000);
  let directory: DirectoryApp;
  let scim: ScimRequest;
  const people: Json[] = [];

  before(async () => {
    // SCIMMY's User schema carries the enterprise extension, as Gatehouse's resource type does.
    if (!Schemas.User.definition.attributes.some((attribute) => attribute.name === ENTERPRISE)) {
      Schemas.User.extend(Schemas.EnterpriseUser as never);
    }
    directory = await startDirectoryApp();
    const { token, baseUrl } = await directory.newScimToken();
    scim = scimClient(baseUrl, token);
  });
  after(async () => {
    await directory?.close();
  });

  it('serves discovery that parses as SCIMMY reads it: ServiceProviderConfig, ResourceTypes, Schemas', async () => {
    const config = await json(await scim('GET', '/ServiceProviderConfig'));
    const parsed = plain(new Schemas.ServiceProviderConfig(config));
    expect(parsed).to.deep.include({
      patch: { supported: true },
      bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
      filter: { supported: true, maxResults: 1000 },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: true },
    });
    // SCIMMY keeps RFC 7643 5's sub-attributes only (`primary` is the RFC's example's, not its schema's).
    expect(parsed.authenticationSchemes[0]).to.include({ type: 'oauthbearertoken' });

    const types = expectList(await json(await scim('GET', '/ResourceTypes')), (type) => {
      expect(() => new Schemas.ResourceType(type)).not.to.throw();
    });
    expect(types.map((type) => [type.name, type.endpoint, type.schema])).to.deep.equal([
      ['User', '/Users', Schemas.User.id],
      ['Group', '/Groups', Schemas.Group.id],
    ]);
    expect(types[0]!.schemaExtensions).to.deep.equal([{ schema: ENTERPRISE, required: false }]);
    expect(() => new Schemas.ResourceType(types[1])).not.to.throw();

    // Each attribute advertised is one SCIMMY's schema knows, of the same type and plurality.
    // SCIMMY's definitions with the common attributes (RFC 7643 3.1: `externalId`), which its description leaves out.
    const theirs = new Map(
      [Schemas.User, Schemas.EnterpriseUser, Schemas.Group].map((schema) => [
        schema.id,
        (plain(schema.definition.attributes) as unknown as Json[]).filter((attribute) => attribute.name !== undefined),
      ]),
    );
    const schemas = expectList(await json(await scim('GET', '/Schemas')), (schema) => {
      expect(schema.schemas).to.deep.equal(['urn:ietf:params:scim:schemas:core:2.0:Schema']);
    });
    expect(schemas.map((schema) => schema.id)).to.have.members([...theirs.keys()]);
    const compare = (ours: Json[], reference: Json[], where: string) => {
      for (const attribute of ours) {
        const known = reference.find((candidate) => candidate.name.toLowerCase() === attribute.name.toLowerCase());
        expect(known, `${where}${attribute.name} is in SCIMMY's schema`).not.to.equal(undefined);
        expect([attribute.type, attribute.multiValued], `${where}${attribute.name}`).to.deep.equal([
          known!.type,
          known!.multiValued,
        ]);
        expect(['readOnly', 'readWrite', 'immutable', 'writeOnly']).to.include(attribute.mutability);
        expect(['always', 'never', 'default', 'request']).to.include(attribute.returned);
        if (attribute.type === 'complex') compare(attribute.subAttributes, known!.subAttributes, `${attribute.name}.`);
      }
    };
    for (const schema of schemas) {
      compare(schema.attributes, theirs.get(schema.id)!, `${schema.name}: `);
    }
    const one = await json(await scim('GET', `/Schemas/${Schemas.User.id}`));
    expect(one.id).to.equal(Schemas.User.id);
    await expectError(await scim('GET', '/Schemas/urn:nothing'), 404);
  });

  it('creates, reads and replaces users whose every answer conforms to SCIMMY’s User and EnterpriseUser schemas', async () => {
    const names = [
      ['grace', 'Grace', 'Hopper', 'Admiral', true],
      ['ada', 'Ada', 'Lovelace', 'Engineer', true],
      ['alan', 'Alan', 'Turing', 'Engineer', false],
      ['edsger', 'Edsger', 'Dijkstra', 'Professor', true],
    ] as const;
    for (const [login, givenName, familyName, title, active] of names) {
      const created = await scim('POST', '/Users', {
        schemas: [Schemas.User.id, ENTERPRISE],
        userName: `${login}@example.test`,
        externalId: randomUUID(),
        name: { givenName, familyName, formatted: `${givenName} ${familyName}` },
        displayName: `${givenName} ${familyName}`,
        title,
        active,
        emails: [
          { value: `${login}@example.test`, type: 'work', primary: true },
          { value: `${login}@home.test`, type: 'home' },
        ],
        phoneNumbers: [{ value: '+1 555 0100', type: 'work' }],
        [ENTERPRISE]: { department: 'Research', employeeNumber: String(people.length + 1) },
      });
      expect(created.status).to.equal(201);
      const user = await json(created);
      expectUser(user);
      people.push(user);
    }
    const read = await json(await scim('GET', `/Users/${people[0]!.id}`));
    expectUser(read);
    expect(withoutMeta(read)).to.deep.equal(withoutMeta(people[0]!));

    const replacement = { ...withoutMeta(people[3]!), nickName: 'EWD', title: 'Fellow' };
    const replaced = await scim('PUT', `/Users/${people[3]!.id}`, replacement);
    expect(replaced.status).to.equal(200);
    const after = await json(replaced);
    expectUser(after);
    expect(withoutMeta(after)).to.deep.equal(replacement);
    people[3] = after;

    await expectError(await scim('POST', '/Users', { userName: 'GRACE@example.test' }), 409, 'uniqueness');
    await expectError(await scim('POST', '/Users', { name: { givenName: 'No userName' } }), 400, 'invalidValue');
    await expectError(await scim('GET', `/Users/${randomUUID()}`), 404);
  });

  it('selects with filters SCIMMY builds and parses exactly what SCIMMY’s own matcher selects', async () => {
    const all = expectList(await json(await scim('GET', '/Users?count=1000')), expectUser);
    expect(all).to.have.length(people.length);
    const filters = [
      new Types.Filter([{ userName: ['eq', 'grace@example.test'] }]),
      new Types.Filter([{ active: ['eq', false] }]),
      new Types.Filter([{ emails: { type: ['eq', 'work'], value: ['ew', 'a@example.test'] } }]),
      new Types.Filter([{ title: ['eq', 'Engineer'] }, { title: ['eq', 'Admiral'] }]),
      new Types.Filter('title pr and not (active eq false)'),
      new Types.Filter('name.givenName sw "A" or name.familyName eq "Dijkstra"'),
      new Types.Filter('emails.value ew "@home.test" and name.familyName co "ur"'),
      new Types.Filter('userName ne "ada@example.test" and emails[type eq "home" and value sw "e"]'),
    ];
    for (const filter of filters) {
      const expected = filter.match(all).map((user: Json) => user.id);
      const answer = await scim('GET', `/Users?${filterQuery(filter.expression)}`);
      expect(answer.status, filter.expression).to.equal(200);
      const found = expectList(await json(answer), expectUser).map((user) => user.id);
      expect(found, filter.expression).to.have.members(expected);
      expect(found.length, filter.expression).to.equal(expected.length);
    }
    expect(filters[0]!.expression).to.equal('userName eq "grace@example.test"');
    // SCIMMY parses an extension attribute qualified by its URN, but its matcher finds nothing by one: checked here alone.
    const byExtension = new Types.Filter(`${ENTERPRISE}:employeeNumber eq "2"`);
    const found = expectList(
      await json(await scim('GET', `/Users?${filterQuery(byExtension.expression)}`)),
      expectUser,
    );
    expect(found.map((user) => user.id)).to.deep.equal([people[1]!.id]);
    await expectError(await scim('GET', `/Users?${filterQuery('userName eq')}`), 400, 'invalidFilter');
  });

  it('applies PatchOp messages as SCIMMY applies them, answering a user that conforms', async () => {
    const before = people[1]!;
    const patches = [
      patchOp(
        { op: 'replace', path: 'emails[type eq "work"].value', value: 'ada.lovelace@example.test' },
        { op: 'add', path: 'nickName', value: 'Countess' },
      ),
      patchOp({ op: 'replace', value: { title: 'Analyst', 'name.familyName': 'King' } }),
      patchOp({ op: 'remove', path: 'emails[type eq "home"]' }, { op: 'remove', path: 'phoneNumbers' }),
      patchOp({ op: 'replace', path: 'active', value: false }),
    ];
    let current = before;
    for (const patch of patches) {
      const expected = await appliedBySCIMMY(Schemas.User, current, patch);
      const answer = await scim('PATCH', `/Users/${current.id}`, patch);
      expect(answer.status, JSON.stringify(patch.Operations)).to.equal(200);
      const patched = await json(answer);
      expectUser(patched);
      expect(withoutMeta(patched), JSON.stringify(patch.Operations)).to.deep.equal(expected);
      current = patched;
    }
    await expectError(
      await scim(
        'PATCH',
        `/Users/${current.id}`,
        patchOp({ op: 'replace', path: 'emails[type eq "fax"].value', value: 'x' }),
      ),
      400,
      'noTarget',
    );
    await expectError(
      await scim('PATCH', `/Users/${current.id}`, patchOp({ op: 'replace', path: 'id', value: 'x' })),
      400,
      'mutability',
    );
    await expectError(
      await scim('PATCH', `/Users/${current.id}`, patchOp({ op: 'remove', path: 'emails[' })),
      400,
      'invalidPath',
    );
    await expectError(
      await scim('PATCH', `/Users/${current.id}`, patchOp({ op: 'add', value: {} }), { 'if-match': 'W/"1"' }),
      412,
    );
  });

  it('creates, reads, lists, patches, replaces and deletes groups whose every answer conforms to SCIMMY’s Group schema', async () => {
    const created = await scim('POST', '/Groups', {
      schemas: [Schemas.Group.id],
      displayName: 'Analysts',
      externalId: randomUUID(),
      members: [{ value: people[0]!.id }],
    });
    expect(created.status).to.equal(201);
    let group = await json(created);
    expectGroup(group);
    expect(group.members.map((member: Json) => member.value)).to.deep.equal([people[0]!.id]);

    const patch = patchOp(
      { op: 'add', path: 'members', value: [{ value: people[1]!.id }, { value: people[2]!.id }] },
      { op: 'remove', path: `members[value eq "${people[0]!.id}"]` },
      { op: 'replace', path: 'displayName', value: 'Analysts and Engineers' },
    );
    const expected = await appliedBySCIMMY(Schemas.Group, group, patch);
    expect((await scim('PATCH', `/Groups/${group.id}`, patch)).status).to.equal(204);
    group = await json(await scim('GET', `/Groups/${group.id}`));
    expectGroup(group);
    expect(group.displayName).to.equal(expected.displayName);
    expect(group.members.map((member: Json) => member.value)).to.have.members(
      expected.members.map((member: Json) => member.value),
    );

    const listed = expectList(
      await json(
        await scim(
          'GET',
          `/Groups?${filterQuery(new Types.Filter([{ displayName: ['eq', group.displayName] }]).expression)}`,
        ),
      ),
      expectGroup,
    );
    expect(listed.map((found) => found.id)).to.deep.equal([group.id]);
    const without = await json(await scim('GET', `/Groups/${group.id}?excludedAttributes=members`));
    expectGroup(without);
    expect(without).not.to.have.property('members');

    const replaced = await scim('PUT', `/Groups/${group.id}`, {
      schemas: [Schemas.Group.id],
      displayName: 'Everyone',
      members: people.map((person) => ({ value: person.id })),
    });
    expect(replaced.status).to.equal(200);
    const everyone = await json(replaced);
    expectGroup(everyone);
    expect(everyone.members).to.have.length(people.length);

    await expectError(await scim('POST', '/Groups', { displayName: 'Everyone' }), 409, 'uniqueness');
    await expectError(await scim('PATCH', `/Groups/${group.id}`, { Operations: [] }), 400, 'invalidSyntax');
    expect((await scim('DELETE', `/Groups/${group.id}`)).status).to.equal(204);
    await expectError(await scim('GET', `/Groups/${group.id}`), 404);
  });

  it('deletes a user, and refuses what no SCIM client may do, in Error messages', async () => {
    expect((await scim('DELETE', `/Users/${people[2]!.id}`)).status).to.equal(204);
    await expectError(await scim('GET', `/Users/${people[2]!.id}`), 404);
    await expectError(await scim('DELETE', `/Users/${people[2]!.id}`), 404);
    await expectError(await scimClient(`${directory.app.url}/scim/v2/acme`, 'gh_scim_wrong')('GET', '/Users'), 401);
    const notJson = await fetch(`${directory.app.url}/scim/v2/acme/Users`, {
      method: 'POST',
      headers: {
        authorization: await directory.newScimToken().then((made) => `Bearer ${made.token}`),
        'content-type': 'application/scim+json',
      },
      body: '{"userName": ',
    });
    await expectError(notJson, 400, 'invalidSyntax');
    const tooLarge = await scim('POST', '/Users', { userName: 'big@example.test', title: 'x'.repeat(2_100_000) });
    await expectError(tooLarge, 413);
  });
});
