import { expect } from 'chai';
import type { UserAttributes } from '../../../src/domain/directory/directory-resources.js';
import { applyUserPatch, readPatch, type PatchOperation } from '../../../src/domain/directory/scim-patch.js';
import { expectScimError } from './expect-scim-error.js';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/** A PATCH body as a client sends it, read and applied to `user`. */
function patched(user: UserAttributes, operations: unknown[]): UserAttributes {
  return applyUserPatch(user, readPatch({ schemas: [PATCH_OP], Operations: operations }));
}

const bjensen: UserAttributes = {
  userName: 'bjensen@example.com',
  active: true,
  displayName: 'Babs Jensen',
  name: { givenName: 'Barbara', familyName: 'Jensen' },
  emails: [
    { value: 'bjensen@example.com', type: 'work', primary: true },
    { value: 'babs@jensen.org', type: 'home' },
  ],
  enterprise: { department: 'Sales' },
};

describe('readPatch', () => {
  it('reads the operations, op in any letter case, the path read by the filter grammar', () => {
    expect(
      readPatch({
        schemas: [PATCH_OP],
        Operations: [
          { op: 'Replace', path: 'emails[type eq "work"].value', value: 'x@example.com' },
          { OP: 'ADD', Path: 'nickName', Value: 'Babs' },
          { op: 'remove', path: 'title' },
        ],
      }),
    ).to.deep.equal([
      {
        op: 'replace',
        path: {
          attribute: 'emails',
          filter: { kind: 'compare', op: 'eq', path: 'type', value: 'work' },
          subAttribute: 'value',
        },
        value: 'x@example.com',
      },
      { op: 'add', path: { attribute: 'nickName' }, value: 'Babs' },
      { op: 'remove', path: { attribute: 'title' } },
    ]);
  });

  it('accepts lower-case operations and schema in another letter case', () => {
    expect(
      readPatch({ SCHEMAS: [PATCH_OP.toUpperCase()], operations: [{ op: 'replace', value: { active: false } }] }),
    ).to.have.length(1);
  });

  const refusals: Array<[string, unknown, number, string | undefined]> = [
    ['a body that is no object', [], 400, 'invalidSyntax'],
    ['no schemas', { Operations: [{ op: 'add', value: {} }] }, 400, 'invalidSyntax'],
    ['schemas without PatchOp', { schemas: ['urn:x'], Operations: [{ op: 'add', value: {} }] }, 400, 'invalidSyntax'],
    ['no Operations', { schemas: [PATCH_OP] }, 400, 'invalidSyntax'],
    ['empty Operations', { schemas: [PATCH_OP], Operations: [] }, 400, 'invalidSyntax'],
    ['Operations that is no list', { schemas: [PATCH_OP], Operations: { op: 'add' } }, 400, 'invalidSyntax'],
    ['an operation that is no object', { schemas: [PATCH_OP], Operations: ['add'] }, 400, 'invalidSyntax'],
    ['an unknown op', { schemas: [PATCH_OP], Operations: [{ op: 'move', path: 'a', value: 1 }] }, 400, 'invalidSyntax'],
    ['a missing op', { schemas: [PATCH_OP], Operations: [{ path: 'a', value: 1 }] }, 400, 'invalidSyntax'],
    [
      'op given twice',
      { schemas: [PATCH_OP], Operations: [{ op: 'add', Op: 'remove', path: 'title', value: 'x' }] },
      400,
      'invalidSyntax',
    ],
    ['a remove without a path', { schemas: [PATCH_OP], Operations: [{ op: 'Remove' }] }, 400, 'noTarget'],
    [
      'an add without a value',
      { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'title' }] },
      400,
      'invalidValue',
    ],
    ['a path that is no string', { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 7 }] }, 400, 'invalidPath'],
    [
      'a malformed path',
      { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'emails[type eq "work"' }] },
      400,
      'invalidPath',
    ],
    [
      'a path over 1,024 characters',
      { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: `emails[value eq "${'a'.repeat(1020)}"]` }] },
      400,
      'invalidPath',
    ],
    [
      'more than 1,000 operations',
      {
        schemas: [PATCH_OP],
        Operations: Array.from({ length: 1001 }, () => ({ op: 'replace', path: 'title', value: 't' })),
      },
      413,
      undefined,
    ],
  ];
  for (const [label, body, status, scimType] of refusals) {
    it(`refuses ${label} with ${status} ${scimType ?? ''}`, () => {
      expectScimError(
        () => readPatch(body),
        status === 413 ? 413 : 400,
        scimType === undefined ? undefined : (scimType as 'invalidSyntax'),
      );
    });
  }

  it('reads 1,000 operations', () => {
    const body = {
      schemas: [PATCH_OP],
      Operations: Array.from({ length: 1000 }, () => ({ op: 'remove', path: 'title' })),
    };
    expect(readPatch(body)).to.have.length(1000);
  });
});

describe('applyUserPatch', () => {
  describe('RFC 7644 3.5.2 examples', () => {
    it('3.5.2.1: adds attributes without a path (emails appended, nickname in another letter case)', () => {
      const user = patched(bjensen, [
        { op: 'add', value: { emails: [{ value: 'babs@example.org', type: 'other' }], nickname: 'Babs' } },
      ]);
      expect(user.nickName).to.equal('Babs');
      expect(user.emails).to.deep.equal([...(bjensen.emails ?? []), { value: 'babs@example.org', type: 'other' }]);
    });

    it('3.5.2.1: an add of a value already there adds nothing', () => {
      const user = patched(bjensen, [
        { op: 'add', path: 'emails', value: [{ value: 'babs@jensen.org', type: 'home' }] },
      ]);
      expect(user.emails).to.deep.equal(bjensen.emails);
    });

    it('3.5.2.2: removes a single-valued attribute, and the values a filter matches', () => {
      const user = patched(bjensen, [
        { op: 'remove', path: 'displayName' },
        { op: 'remove', path: 'emails[type eq "work" and value ew "example.com"]' },
      ]);
      expect(user).not.to.have.property('displayName');
      expect(user.emails).to.deep.equal([{ value: 'babs@jensen.org', type: 'home' }]);
    });

    it('3.5.2.2: removes a whole multi-valued attribute, and a sub-attribute', () => {
      const user = patched(bjensen, [
        { op: 'remove', path: 'emails' },
        { op: 'remove', path: 'name.familyName' },
      ]);
      expect(user).not.to.have.property('emails');
      expect(user.name).to.deep.equal({ givenName: 'Barbara' });
    });

    it('3.5.2.3: replaces attributes without a path (the emails list whole)', () => {
      const emails = [
        { value: 'bjensen@example.com', type: 'work', primary: true },
        { value: 'babs@jensen.org', type: 'home' },
        { value: 'b@example.net', type: 'other' },
      ];
      const user = patched({ ...bjensen, emails: [] }, [{ op: 'replace', value: { emails, nickname: 'Babs' } }]);
      expect(user.emails).to.deep.equal(emails);
      expect(user.nickName).to.equal('Babs');
    });

    it('3.5.2.3: a replace of a multi-valued attribute by path replaces every value', () => {
      const user = patched(bjensen, [{ op: 'replace', path: 'emails', value: [{ value: 'only@example.com' }] }]);
      expect(user.emails).to.deep.equal([{ value: 'only@example.com' }]);
    });

    it('an add by filter path merges the value into the values it matches', () => {
      const user = patched(bjensen, [{ op: 'add', path: 'emails[type eq "work"]', value: { display: 'Work' } }]);
      expect(user.emails?.[0]).to.deep.equal({
        value: 'bjensen@example.com',
        type: 'work',
        primary: true,
        display: 'Work',
      });
    });

    it('a remove of the value of the values a filter matches removes those values', () => {
      const user = patched(bjensen, [{ op: 'remove', path: 'emails[type eq "work"].value' }]);
      expect(user.emails).to.deep.equal([{ value: 'babs@jensen.org', type: 'home' }]);
      const display = patched({ ...bjensen, emails: [{ value: 'a@example.com', display: 'A' }] }, [
        { op: 'remove', path: 'emails[value eq "a@example.com"].display' },
      ]);
      expect(display.emails).to.deep.equal([{ value: 'a@example.com' }]);
    });

    it('a value filter compares strings without regard to letter case, and reads not ( )', () => {
      expect(patched(bjensen, [{ op: 'remove', path: 'emails[TYPE eq "WORK"]' }]).emails).to.deep.equal([
        { value: 'babs@jensen.org', type: 'home' },
      ]);
      expect(patched(bjensen, [{ op: 'remove', path: 'emails[not (type eq "work")]' }]).emails).to.deep.equal([
        { value: 'bjensen@example.com', type: 'work', primary: true },
      ]);
      expect(patched(bjensen, [{ op: 'remove', path: 'emails[primary eq "True"]' }]).emails).to.have.length(1);
      const mixedCase = { ...bjensen, emails: [{ value: 'A@Example.COM', type: 'Work' }] };
      expect(
        patched(mixedCase, [{ op: 'remove', path: 'emails[type eq "work" and value sw "a@example"]' }]),
      ).not.to.have.property('emails');
    });

    it('3.5.2.3: replaces the values a filter matches, whole', () => {
      const user = patched(bjensen, [
        {
          op: 'replace',
          path: 'emails[type eq "work"]',
          value: { type: 'work', value: 'new@example.com', primary: true },
        },
      ]);
      expect(user.emails).to.deep.equal([
        { value: 'new@example.com', type: 'work', primary: true },
        { value: 'babs@jensen.org', type: 'home' },
      ]);
    });

    it('3.5.2.3: replaces a sub-attribute of the values a filter matches', () => {
      const user = patched(bjensen, [
        { op: 'replace', path: 'emails[type eq "work"].value', value: 'new@example.com' },
      ]);
      expect(user.emails?.[0]).to.deep.equal({ value: 'new@example.com', type: 'work', primary: true });
    });

    it('3.5.2.3: a replace of an attribute with no value is an add', () => {
      expect(patched(bjensen, [{ op: 'replace', path: 'title', value: 'Tour Guide' }]).title).to.equal('Tour Guide');
      expect(
        patched({ userName: 'u', active: true }, [{ op: 'replace', path: 'emails.value', value: 'u@example.com' }])
          .emails,
      ).to.deep.equal([{ value: 'u@example.com' }]);
    });

    it('3.5.2.3: a replace of a complex attribute keeps the sub-attributes not given', () => {
      const user = patched(bjensen, [{ op: 'replace', path: 'name', value: { givenName: 'Babs' } }]);
      expect(user.name).to.deep.equal({ givenName: 'Babs', familyName: 'Jensen' });
    });

    it('3.5.2: a value made primary turns the others off', () => {
      const user = patched(bjensen, [{ op: 'replace', path: 'emails[type eq "home"].primary', value: true }]);
      expect(user.emails).to.deep.equal([
        { value: 'bjensen@example.com', type: 'work', primary: false },
        { value: 'babs@jensen.org', type: 'home', primary: true },
      ]);
      const added = patched(bjensen, [
        { op: 'add', path: 'emails', value: [{ value: 'n@example.com', primary: true }] },
      ]);
      expect(added.emails?.filter((email) => email.primary)).to.deep.equal([{ value: 'n@example.com', primary: true }]);
    });
  });

  describe("Entra ID's requests", () => {
    it('Replace of active with "False", with and without a path', () => {
      expect(patched(bjensen, [{ op: 'Replace', path: 'active', value: 'False' }]).active).to.equal(false);
      expect(patched(bjensen, [{ op: 'Replace', value: { active: 'False' } }]).active).to.equal(false);
      expect(patched({ ...bjensen, active: false }, [{ op: 'Replace', value: { active: 'True' } }]).active).to.equal(
        true,
      );
    });

    it('Replace with dotted and URN-qualified keys', () => {
      const user = patched(bjensen, [
        {
          op: 'Replace',
          value: {
            displayName: 'B. Jensen',
            'name.givenName': 'Babs',
            'NAME.familyName': 'Jensen-Smith',
            [`${ENTERPRISE}:department`]: 'Marketing',
            [`${ENTERPRISE}:manager`]: { value: '26118915' },
            'urn:ietf:params:scim:schemas:core:2.0:User:title': 'Lead',
          },
        },
      ]);
      expect(user).to.deep.include({
        displayName: 'B. Jensen',
        title: 'Lead',
        name: { givenName: 'Babs', familyName: 'Jensen-Smith' },
        enterprise: { department: 'Marketing', manager: { value: '26118915' } },
      });
    });

    it('Replace of a work email by filter path and of name.familyName', () => {
      const user = patched(bjensen, [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
      ]);
      expect(user.emails?.[0]?.value).to.equal('updatedEmail@microsoft.com');
      expect(user.name?.familyName).to.equal('updatedFamilyName');
    });

    it('Add of a work email to a user without one creates it from the filter', () => {
      const user = patched({ userName: 'u', active: true }, [
        { op: 'Add', path: 'emails[type eq "work"].value', value: 'u@example.com' },
        { op: 'Add', path: 'emails[type eq "work"].primary', value: 'True' },
      ]);
      expect(user.emails).to.deep.equal([{ type: 'work', value: 'u@example.com', primary: true }]);
    });

    it('Add of the manager by its id alone', () => {
      const user = patched(bjensen, [{ op: 'Add', path: `${ENTERPRISE}:manager`, value: '2819c223' }]);
      expect(user.enterprise).to.deep.equal({ department: 'Sales', manager: { value: '2819c223' } });
    });

    it('Add of the manager as its tutorial writes it: path "manager" unqualified, a list of one reference', () => {
      const user = patched(bjensen, [
        {
          op: 'Add',
          path: 'manager',
          value: [{ $ref: 'https://app.example/scim/v2/acme/Users/2819c223', value: '2819c223' }],
        },
      ]);
      expect(user.enterprise).to.deep.equal({ department: 'Sales', manager: { value: '2819c223' } });
      const removed = patched(user, [{ op: 'Remove', path: 'manager' }]);
      expect(removed.enterprise).to.deep.equal({ department: 'Sales' });
      expectScimError(
        () => patched(bjensen, [{ op: 'Add', path: 'manager', value: [{ value: 'a' }, { value: 'b' }] }]),
        400,
        'invalidValue',
      );
    });

    it("reads an unqualified extension attribute as the extension's, never a core one", () => {
      const user = patched(bjensen, [{ op: 'Replace', value: { department: 'R&D', displayName: 'B' } }]);
      expect(user.enterprise).to.deep.equal({ department: 'R&D' });
      expect(user.displayName).to.equal('B');
    });

    it('Replace of the enterprise extension whole keeps what is not given', () => {
      const user = patched(bjensen, [{ op: 'Replace', path: ENTERPRISE, value: { employeeNumber: '7' } }]);
      expect(user.enterprise).to.deep.equal({ department: 'Sales', employeeNumber: '7' });
    });

    it('ignores attributes Gatehouse does not keep, by path and by key', () => {
      const user = patched(bjensen, [
        { op: 'Add', path: 'addresses[type eq "work"].streetAddress', value: '1 Main St' },
        { op: 'Replace', path: 'urn:ietf:params:scim:schemas:extension:other:2.0:User:x', value: 'y' },
        { op: 'Replace', value: { 'addresses[type eq "work"].locality': 'X', roles: [], 'not a name': 1 } },
      ]);
      expect(user).to.deep.equal(bjensen);
    });
  });

  describe("Okta's requests", () => {
    it('replace of active without a path', () => {
      expect(patched(bjensen, [{ op: 'replace', value: { active: false } }]).active).to.equal(false);
    });

    it('a pushed password is never kept', () => {
      const user = patched(bjensen, [{ op: 'replace', value: { password: 'S3cr3t-sentinel-password' } }]);
      expect(JSON.stringify(user)).not.to.include('S3cr3t-sentinel-password');
      expect(user).to.deep.equal(bjensen);
    });

    it('ignores id and meta as keys of a path-less value', () => {
      expect(patched(bjensen, [{ op: 'replace', value: { id: 'other', meta: {}, active: false } }]).active).to.equal(
        false,
      );
    });
  });

  describe('refusals', () => {
    it('a filter matching nothing on replace or remove is noTarget', () => {
      expectScimError(
        () => patched(bjensen, [{ op: 'replace', path: 'emails[type eq "other"].value', value: 'x@example.com' }]),
        400,
        'noTarget',
      );
      expectScimError(() => patched(bjensen, [{ op: 'remove', path: 'emails[type eq "other"]' }]), 400, 'noTarget');
      expectScimError(
        () => patched(bjensen, [{ op: 'replace', path: 'emails[type eq "other"]', value: { value: 'x' } }]),
        400,
        'noTarget',
      );
    });

    it('an add by a filter that is not a set of eq cannot create a value: noTarget', () => {
      expectScimError(
        () => patched(bjensen, [{ op: 'add', path: 'emails[type co "oth"].value', value: 'x@example.com' }]),
        400,
        'noTarget',
      );
      expectScimError(
        () => patched(bjensen, [{ op: 'add', path: 'emails[type eq "other" and value co "x"].display', value: 'x' }]),
        400,
        'noTarget',
      );
    });

    it('id, meta, groups and schemas by path are mutability', () => {
      for (const path of [
        'id',
        'ID',
        'meta.lastModified',
        'groups',
        'schemas',
        'urn:ietf:params:scim:schemas:core:2.0:User:id',
      ]) {
        expectScimError(() => patched(bjensen, [{ op: 'replace', path, value: 'x' }]), 400, 'mutability');
      }
      expectScimError(() => patched(bjensen, [{ op: 'remove', path: 'meta' }]), 400, 'mutability');
    });

    it('the result is read by the rules of readUser', () => {
      expectScimError(() => patched(bjensen, [{ op: 'remove', path: 'userName' }]), 400, 'invalidValue');
      expectScimError(
        () => patched(bjensen, [{ op: 'replace', path: 'userName', value: 'a'.repeat(1025) }]),
        400,
        'invalidValue',
      );
      expectScimError(() => patched(bjensen, [{ op: 'replace', path: 'active', value: 'x' }]), 400, 'invalidValue');
      expectScimError(() => patched(bjensen, [{ op: 'replace', path: 'name', value: 'Barbara' }]), 400, 'invalidValue');
      expectScimError(
        () =>
          patched(bjensen, [
            {
              op: 'add',
              path: 'emails',
              value: [
                { value: 'a', primary: true },
                { value: 'b', primary: true },
              ],
            },
          ]),
        400,
        'invalidValue',
      );
    });

    it('active cannot be removed', () => {
      expectScimError(
        () => patched({ ...bjensen, active: false }, [{ op: 'remove', path: 'active' }]),
        400,
        'invalidValue',
      );
    });

    it('more than 20 emails, even on the way, is invalidValue', () => {
      const many = Array.from({ length: 19 }, (_, i) => ({ value: `e${i}@example.com` }));
      expect(patched(bjensen, [{ op: 'add', path: 'emails', value: many.slice(0, 18) }]).emails).to.have.length(20);
      expectScimError(() => patched(bjensen, [{ op: 'add', path: 'emails', value: many }]), 400, 'invalidValue');
      // Refused at the operation that overflows, though a later one would bring the count back.
      const more = Array.from({ length: 19 }, (_, i) => ({ value: `m${i}@example.com` }));
      expectScimError(
        () =>
          patched(bjensen, [
            { op: 'add', path: 'emails', value: more },
            { op: 'remove', path: 'emails' },
          ]),
        400,
        'invalidValue',
      );
    });

    it('a path-less value that is no object is invalidValue', () => {
      expectScimError(() => patched(bjensen, [{ op: 'replace', value: 'x' }]), 400, 'invalidValue');
    });

    it('a sub-attribute of a simple attribute, or a filter on a single-valued one, is invalidPath', () => {
      expectScimError(() => patched(bjensen, [{ op: 'replace', path: 'userName.x', value: 'x' }]), 400, 'invalidPath');
      expectScimError(
        () => patched(bjensen, [{ op: 'replace', path: 'name[givenName eq "x"]', value: {} }]),
        400,
        'invalidPath',
      );
      expectScimError(() => patched(bjensen, [{ op: 'remove', path: 'emails[nosuch eq "x"]' }]), 400, 'invalidPath');
    });

    it('names the attribute, never the value', () => {
      const secret = 'S3cr3t-sentinel-value';
      const error = expectScimError(
        () => patched(bjensen, [{ op: 'replace', path: `emails[type eq "${secret}"]`, value: { value: secret } }]),
        400,
        'noTarget',
      );
      expect(error.detail).not.to.include(secret);
      const invalid = expectScimError(
        () => patched(bjensen, [{ op: 'replace', value: { active: secret } }]),
        400,
        'invalidValue',
      );
      expect(invalid.detail).not.to.include(secret);
    });
  });

  it('applies the operations in order and leaves its input unchanged', () => {
    const before = structuredClone(bjensen);
    const operations: PatchOperation[] = readPatch({
      schemas: [PATCH_OP],
      Operations: [
        { op: 'replace', path: 'title', value: 'A' },
        { op: 'replace', path: 'title', value: 'B' },
        { op: 'remove', path: 'emails[type eq "home"]' },
        { op: 'replace', path: 'name.givenName', value: 'Babs' },
      ],
    });
    const user = applyUserPatch(bjensen, operations);
    expect(user.title).to.equal('B');
    expect(user.emails).to.have.length(1);
    expect(bjensen).to.deep.equal(before);
  });
});
