import { expect } from 'chai';
import type { DirectoryGroup, DirectoryUser } from '../../../src/domain/directory/directory-resources.js';
import {
  groupResource,
  projectAttributes,
  readGroup,
  readUser,
  userResource,
} from '../../../src/domain/directory/scim-resources.js';
import { expectScimError } from './expect-scim-error.js';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';

describe('readUser', () => {
  it("reads Okta's whole-user PUT body, deactivated", () => {
    const body = {
      schemas: [USER],
      id: '23a35c27-23d3-4c03-b4c5-6443c09e7173',
      userName: 'test.user@okta.local',
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Test User',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: 'S3cr3t-sentinel-password',
      active: false,
      meta: { resourceType: 'User' },
    };
    const user = readUser(body);
    expect(user).to.deep.equal({
      userName: 'test.user@okta.local',
      active: false,
      externalId: '00ujl29u0le5T6Aj10h7',
      displayName: 'Test User',
      locale: 'en-US',
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ value: 'test.user@okta.local', type: 'work', primary: true }],
    });
    expect(JSON.stringify(user)).not.to.include('S3cr3t-sentinel-password');
  });

  it("reads Entra ID's POST body: the enterprise extension under its URN, booleans as strings", () => {
    const user = readUser({
      schemas: [USER, ENTERPRISE],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1',
      active: 'True',
      emails: [{ primary: 'true', type: 'work', value: 'Test_User_fd0ea19b@testuser.com' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
      [ENTERPRISE]: { employeeNumber: '701984', department: 'Tour Operations', manager: { value: '26118915' } },
    });
    expect(user).to.deep.equal({
      userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1',
      active: true,
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      emails: [{ value: 'Test_User_fd0ea19b@testuser.com', type: 'work', primary: true }],
      enterprise: { employeeNumber: '701984', department: 'Tour Operations', manager: { value: '26118915' } },
    });
  });

  it('matches attribute names (and the extension URN) without regard to letter case', () => {
    expect(
      readUser({
        USERNAME: 'bjensen',
        Active: 'FALSE',
        NAME: { GIVENNAME: 'Barbara' },
        Emails: [{ VALUE: 'b@example.com', Primary: false }],
        [ENTERPRISE.toLowerCase()]: { Department: 'Sales' },
      }),
    ).to.deep.equal({
      userName: 'bjensen',
      active: false,
      name: { givenName: 'Barbara' },
      emails: [{ value: 'b@example.com', primary: false }],
      enterprise: { department: 'Sales' },
    });
  });

  it('keeps every attribute it documents', () => {
    const all = {
      userName: 'u',
      externalId: 'e',
      active: true,
      displayName: 'd',
      nickName: 'n',
      title: 't',
      userType: 'Employee',
      preferredLanguage: 'en-GB',
      locale: 'en-GB',
      timezone: 'Europe/London',
      name: {
        formatted: 'f',
        familyName: 'fa',
        givenName: 'g',
        middleName: 'm',
        honorificPrefix: 'Ms.',
        honorificSuffix: 'III',
      },
      emails: [{ value: 'a@example.com', type: 'work', primary: true, display: 'A' }],
      phoneNumbers: [{ value: 'tel:+1-201-555-0123', type: 'mobile' }],
    };
    const enterprise = {
      employeeNumber: '1',
      costCenter: '2',
      organization: '3',
      division: '4',
      department: '5',
      manager: { value: '6', displayName: '7' },
    };
    expect(readUser({ ...all, [ENTERPRISE]: enterprise })).to.deep.equal({ ...all, enterprise });
  });

  it('ignores read-only and unknown attributes, and prototype keys', () => {
    const user = readUser(
      JSON.parse(
        '{"userName":"u","id":"x","meta":{"version":"1"},"groups":[{"value":"g"}],"addresses":[{"type":"work"}],' +
          '"__proto__":{"active":false},"name":{"__proto__":{"x":1},"givenName":"g"}}',
      ),
    );
    expect(user).to.deep.equal({ userName: 'u', active: true, name: { givenName: 'g' } });
    expect(Object.getPrototypeOf(user)).to.equal(Object.prototype);
  });

  it('reads null and empty lists as unassigned, and active as true unless given', () => {
    expect(readUser({ userName: 'u', title: null, emails: [], name: {}, active: null })).to.deep.equal({
      userName: 'u',
      active: true,
    });
  });

  describe('refusals', () => {
    const cases: Array<[string, unknown, 'invalidValue' | 'invalidSyntax']> = [
      ['a body that is no object', [{ userName: 'u' }], 'invalidSyntax'],
      ['a string body', 'u', 'invalidSyntax'],
      ['a null body', null, 'invalidSyntax'],
      ['no userName', { displayName: 'd' }, 'invalidValue'],
      ['a blank userName', { userName: '  ' }, 'invalidValue'],
      ['a userName that is no string', { userName: 7 }, 'invalidValue'],
      ['active that is no boolean', { userName: 'u', active: 'yes' }, 'invalidValue'],
      ['active as a number', { userName: 'u', active: 0 }, 'invalidValue'],
      ['name that is no object', { userName: 'u', name: 'Barbara' }, 'invalidValue'],
      ['emails that is no list', { userName: 'u', emails: { value: 'a@b' } }, 'invalidValue'],
      ['an email that is no object', { userName: 'u', emails: ['a@b'] }, 'invalidValue'],
      ['an email without a value', { userName: 'u', emails: [{ type: 'work' }] }, 'invalidValue'],
      [
        'two primary emails',
        {
          userName: 'u',
          emails: [
            { value: 'a', primary: true },
            { value: 'b', primary: 'True' },
          ],
        },
        'invalidValue',
      ],
      ['employeeNumber as a number', { userName: 'u', [ENTERPRISE]: { employeeNumber: 7 } }, 'invalidValue'],
      ['userName given twice in two spellings', { userName: 'a', UserName: 'b' }, 'invalidSyntax'],
    ];
    for (const [label, body, scimType] of cases) {
      it(`refuses ${label} with 400 ${scimType}`, () => {
        expectScimError(() => readUser(body), 400, scimType);
      });
    }

    it('refuses a string over 1,024 characters, anywhere', () => {
      expect(() => readUser({ userName: 'a'.repeat(1024) })).not.to.throw();
      expectScimError(() => readUser({ userName: 'a'.repeat(1025) }), 400, 'invalidValue');
      expectScimError(() => readUser({ userName: 'u', name: { givenName: 'a'.repeat(1025) } }), 400, 'invalidValue');
      expectScimError(
        () => readUser({ userName: 'u', [ENTERPRISE]: { manager: { value: 'a'.repeat(1025) } } }),
        400,
        'invalidValue',
      );
    });

    it('refuses more than 20 emails or phone numbers', () => {
      const values = (count: number) => Array.from({ length: count }, (_, i) => ({ value: `v${i}` }));
      expect(() => readUser({ userName: 'u', emails: values(20), phoneNumbers: values(20) })).not.to.throw();
      expectScimError(() => readUser({ userName: 'u', emails: values(21) }), 400, 'invalidValue');
      expectScimError(() => readUser({ userName: 'u', phoneNumbers: values(21) }), 400, 'invalidValue');
    });

    it('names the attribute, never the value', () => {
      const secret = 'S3cr3t-sentinel-value';
      for (const body of [
        { userName: secret, active: secret },
        { userName: 'u', name: { givenName: `${secret}${'x'.repeat(1100)}` } },
        { userName: 'u', emails: [{ value: 'a', primary: secret }] },
      ]) {
        const error = expectScimError(() => readUser(body), 400, 'invalidValue');
        expect(error.detail).not.to.include(secret);
      }
      expect(expectScimError(() => readUser({ userName: 'u', active: 'yes' }), 400, 'invalidValue').detail).to.equal(
        'active must be true or false.',
      );
      expect(
        expectScimError(() => readUser({ userName: 'u', [ENTERPRISE]: { department: 1 } }), 400, 'invalidValue').detail,
      ).to.equal(`${ENTERPRISE}:department must be a string.`);
    });
  });
});

describe('readGroup', () => {
  it("reads Okta's group push: members by value, each once, in order", () => {
    expect(
      readGroup({
        schemas: [GROUP],
        displayName: 'Test SCIMv2',
        members: [
          { value: 'b', display: 'B' },
          { value: 'a', display: 'A' },
          { value: 'b', display: 'B' },
        ],
      }),
    ).to.deep.equal({ attributes: { displayName: 'Test SCIMv2' }, members: ['b', 'a'] });
  });

  it("reads Entra ID's group without members, externalId kept, id and meta ignored", () => {
    expect(
      readGroup({
        schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
        ID: 'x',
        externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
        displayname: 'displayName',
        meta: { resourceType: 'Group' },
      }),
    ).to.deep.equal({
      attributes: { displayName: 'displayName', externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159' },
      members: [],
    });
  });

  it('reads 10,000 members at once', () => {
    const members = Array.from({ length: 10_000 }, (_, i) => ({ value: `user-${i}` }));
    const started = performance.now();
    expect(readGroup({ displayName: 'Everyone', members }).members).to.have.length(10_000);
    expect(performance.now() - started).to.be.below(500);
  });

  for (const [label, body] of [
    ['no displayName', { members: [] }],
    ['a blank displayName', { displayName: '' }],
    ['a member without a value', { displayName: 'g', members: [{ display: 'x' }] }],
    ['a member that is a bare string', { displayName: 'g', members: ['x'] }],
    ['a member value over 1,024 characters', { displayName: 'g', members: [{ value: 'x'.repeat(1025) }] }],
  ] as const) {
    it(`refuses ${label} with 400 invalidValue`, () => {
      expectScimError(() => readGroup(body), 400, 'invalidValue');
    });
  }
});

const user: DirectoryUser = {
  id: '2819c223-7f76-453a-919d-413861904646',
  organization: 'acme',
  attributes: {
    userName: 'bjensen@example.com',
    active: true,
    name: { givenName: 'Barbara', familyName: 'Jensen' },
    emails: [{ value: 'bjensen@example.com', type: 'work', primary: true }],
    enterprise: { department: 'Sales', manager: { value: '26118915' } },
  },
  version: 3,
  created: Date.UTC(2024, 0, 2, 3, 4, 5),
  lastModified: Date.UTC(2024, 5, 6, 7, 8, 9, 10),
};
const location = 'https://gatehouse.example/scim/v2/acme/Users/2819c223-7f76-453a-919d-413861904646';

describe('userResource', () => {
  it('is the SCIM User with schemas, id and meta', () => {
    expect(userResource(user, location)).to.deep.equal({
      schemas: [USER, ENTERPRISE],
      id: '2819c223-7f76-453a-919d-413861904646',
      userName: 'bjensen@example.com',
      name: { givenName: 'Barbara', familyName: 'Jensen' },
      active: true,
      emails: [{ value: 'bjensen@example.com', type: 'work', primary: true }],
      [ENTERPRISE]: { department: 'Sales', manager: { value: '26118915' } },
      meta: {
        resourceType: 'User',
        created: '2024-01-02T03:04:05.000Z',
        lastModified: '2024-06-06T07:08:09.010Z',
        location,
        version: 'W/"3"',
      },
    });
  });

  it('names only the core schema when the user has nothing of the extension', () => {
    const plain = userResource({ ...user, attributes: { userName: 'u', active: false } }, location);
    expect(plain.schemas).to.deep.equal([USER]);
    expect(plain).not.to.have.property(ENTERPRISE);
    expect(plain.active).to.equal(false);
  });

  it('reads back as the same attributes', () => {
    expect(readUser(userResource(user, location))).to.deep.equal(user.attributes);
  });
});

describe('groupResource', () => {
  const group: DirectoryGroup = {
    id: 'e9e30dba-f08f-4109-8486-d5c6a331660a',
    organization: 'acme',
    attributes: { displayName: 'Tour Guides', externalId: 'g-1' },
    version: 12,
    created: Date.UTC(2024, 0, 1),
    lastModified: Date.UTC(2024, 0, 2),
  };
  const groupLocation = 'https://gatehouse.example/scim/v2/acme/Groups/e9e30dba-f08f-4109-8486-d5c6a331660a';

  it('is the SCIM Group with its members', () => {
    expect(groupResource(group, [{ value: 'a', display: 'Babs Jensen' }, { value: 'b' }], groupLocation)).to.deep.equal(
      {
        schemas: [GROUP],
        id: 'e9e30dba-f08f-4109-8486-d5c6a331660a',
        displayName: 'Tour Guides',
        externalId: 'g-1',
        members: [{ value: 'a', display: 'Babs Jensen' }, { value: 'b' }],
        meta: {
          resourceType: 'Group',
          created: '2024-01-01T00:00:00.000Z',
          lastModified: '2024-01-02T00:00:00.000Z',
          location: groupLocation,
          version: 'W/"12"',
        },
      },
    );
  });

  it('leaves members out when they were not loaded', () => {
    expect(groupResource(group, undefined, groupLocation)).not.to.have.property('members');
    expect(groupResource(group, [], groupLocation).members).to.deep.equal([]);
  });
});

describe('projectAttributes', () => {
  const resource = userResource(user, location);

  it('drops members as Entra ID asks with excludedAttributes=members, keeping the rest', () => {
    const group = groupResource(
      {
        id: 'g',
        organization: 'acme',
        attributes: { displayName: 'G' },
        version: 1,
        created: 0,
        lastModified: 0,
      },
      [{ value: 'a' }],
      'https://x/Groups/g',
    );
    const projected = projectAttributes(group, { excludedAttributes: 'members' });
    expect(Object.keys(projected)).to.deep.equal(['schemas', 'id', 'displayName', 'meta']);
  });

  it('keeps only the attributes asked for, with id, schemas and meta always', () => {
    expect(projectAttributes(resource, { attributes: 'userName,NAME.givenName, emails.value' })).to.deep.equal({
      schemas: resource.schemas,
      id: resource.id,
      userName: 'bjensen@example.com',
      name: { givenName: 'Barbara' },
      emails: [{ value: 'bjensen@example.com' }],
      meta: resource.meta,
    });
  });

  it('reads names qualified by a schema URN, the extension whole or in part', () => {
    expect(projectAttributes(resource, { attributes: `${USER}:userName,${ENTERPRISE}:manager.value` })).to.deep.equal({
      schemas: resource.schemas,
      id: resource.id,
      userName: 'bjensen@example.com',
      [ENTERPRISE]: { manager: { value: '26118915' } },
      meta: resource.meta,
    });
    expect(projectAttributes(resource, { attributes: ENTERPRISE.toLowerCase() })[ENTERPRISE]).to.deep.equal({
      department: 'Sales',
      manager: { value: '26118915' },
    });
  });

  it('excludes sub-attributes and never the ones always returned', () => {
    const projected = projectAttributes(resource, {
      excludedAttributes: `id,meta,schemas,name.familyName,emails.type,${ENTERPRISE}:department,active`,
    });
    expect(projected).to.deep.equal({
      schemas: resource.schemas,
      id: resource.id,
      userName: 'bjensen@example.com',
      name: { givenName: 'Barbara' },
      emails: [{ value: 'bjensen@example.com', primary: true }],
      [ENTERPRISE]: { manager: { value: '26118915' } },
      meta: resource.meta,
    });
  });

  it('selects nothing for a name the resource does not hold', () => {
    expect(projectAttributes(resource, { attributes: 'nosuch,urn:x:y:title' })).to.deep.equal({
      schemas: resource.schemas,
      id: resource.id,
      meta: resource.meta,
    });
  });

  it('refuses a list over 1,024 characters', () => {
    expectScimError(() => projectAttributes(resource, { attributes: 'a,'.repeat(513) }), 400, 'invalidValue');
  });
});
