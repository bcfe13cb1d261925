import { expect } from 'chai';
import { parseFilterSyntax } from '../../../src/domain/directory/scim-filter-syntax.js';
import { readScimFilter } from '../../../src/domain/directory/scim-filter.js';
import { expectScimError } from './expect-scim-error.js';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

describe('readScimFilter', () => {
  describe('RFC 7644 3.4.2.2 examples', () => {
    // Every example filter of the RFC is valid grammar.
    const examples = [
      'userName eq "bjensen"',
      'name.familyName co "O\'Malley"',
      'userName sw "J"',
      'urn:ietf:params:scim:schemas:core:2.0:User:userName sw "J"',
      'title pr',
      'meta.lastModified gt "2011-05-13T04:42:34Z"',
      'meta.lastModified ge "2011-05-13T04:42:34Z"',
      'meta.lastModified lt "2011-05-13T04:42:34Z"',
      'meta.lastModified le "2011-05-13T04:42:34Z"',
      'title pr and userType eq "Employee"',
      'title pr or userType eq "Intern"',
      'schemas eq "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"',
      'userType eq "Employee" and (emails co "example.com" or emails.value co "example.org")',
      'userType ne "Employee" and not (emails co "example.com" or emails.value co "example.org")',
      'userType eq "Employee" and (emails.type eq "work")',
      'userType eq "Employee" and emails[type eq "work" and value co "@example.com"]',
      'emails[type eq "work" and value co "@example.com"] or ims[type eq "xmpp" and value co "@foo.com"]',
    ];
    for (const example of examples) {
      it(`reads the grammar of ${example}`, () => {
        expect(() => parseFilterSyntax(example)).not.to.throw();
      });
    }

    const users: Array<[string, unknown]> = [
      ['userName eq "bjensen"', { op: 'eq', attribute: 'userName', value: 'bjensen' }],
      ['name.familyName co "O\'Malley"', { op: 'co', attribute: 'name.familyName', value: "O'Malley" }],
      ['userName sw "J"', { op: 'sw', attribute: 'userName', value: 'J' }],
      ['urn:ietf:params:scim:schemas:core:2.0:User:userName sw "J"', { op: 'sw', attribute: 'userName', value: 'J' }],
      ['title pr', { op: 'pr', attribute: 'title' }],
      [
        'meta.lastModified gt "2011-05-13T04:42:34Z"',
        { op: 'gt', attribute: 'meta.lastModified', value: '2011-05-13T04:42:34.000Z' },
      ],
      [
        'meta.lastModified ge "2011-05-13T04:42:34Z"',
        { op: 'ge', attribute: 'meta.lastModified', value: '2011-05-13T04:42:34.000Z' },
      ],
      [
        'meta.lastModified lt "2011-05-13T04:42:34Z"',
        { op: 'lt', attribute: 'meta.lastModified', value: '2011-05-13T04:42:34.000Z' },
      ],
      [
        'meta.lastModified le "2011-05-13T04:42:34Z"',
        { op: 'le', attribute: 'meta.lastModified', value: '2011-05-13T04:42:34.000Z' },
      ],
      // The RFC's userType examples, with an attribute Gatehouse searches in its place.
      [
        'title ne "Employee" and not (emails co "example.com" or emails.value co "example.org")',
        {
          op: 'and',
          filters: [
            { op: 'ne', attribute: 'title', value: 'Employee' },
            {
              op: 'not',
              filter: {
                op: 'or',
                filters: [
                  { op: 'co', attribute: 'emails.value', value: 'example.com' },
                  { op: 'co', attribute: 'emails.value', value: 'example.org' },
                ],
              },
            },
          ],
        },
      ],
      [
        'title eq "Employee" and (emails.type eq "work")',
        {
          op: 'and',
          filters: [
            { op: 'eq', attribute: 'title', value: 'Employee' },
            { op: 'eq', attribute: 'emails.type', value: 'work' },
          ],
        },
      ],
      [
        'title eq "Employee" and emails[type eq "work" and value co "@example.com"]',
        {
          op: 'and',
          filters: [
            { op: 'eq', attribute: 'title', value: 'Employee' },
            {
              op: 'has',
              attribute: 'emails',
              filter: {
                op: 'and',
                filters: [
                  { op: 'eq', attribute: 'emails.type', value: 'work' },
                  { op: 'co', attribute: 'emails.value', value: '@example.com' },
                ],
              },
            },
          ],
        },
      ],
    ];
    for (const [text, expected] of users) {
      it(`reads ${text}`, () => {
        expect(readScimFilter(text, 'User')).to.deep.equal(expected);
      });
    }

    it('refuses the examples naming attributes Gatehouse does not search (userType, schemas, ims)', () => {
      for (const text of [
        'title pr and userType eq "Employee"',
        'schemas eq "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"',
        'emails[type eq "work"] or ims[type eq "xmpp" and value co "@foo.com"]',
      ]) {
        expectScimError(() => readScimFilter(text, 'User'), 400, 'invalidFilter');
      }
    });
  });

  describe('operators and precedence', () => {
    for (const op of ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']) {
      it(`reads ${op}, in any letter case`, () => {
        expect(readScimFilter(`displayName ${op.toUpperCase()} "x"`, 'User')).to.deep.equal({
          op,
          attribute: 'displayName',
          value: 'x',
        });
      });
    }

    it('binds and tighter than or', () => {
      expect(readScimFilter('title pr or userName eq "a" and displayName eq "b"', 'User')).to.deep.equal({
        op: 'or',
        filters: [
          { op: 'pr', attribute: 'title' },
          {
            op: 'and',
            filters: [
              { op: 'eq', attribute: 'userName', value: 'a' },
              { op: 'eq', attribute: 'displayName', value: 'b' },
            ],
          },
        ],
      });
    });

    it('lets parentheses override precedence', () => {
      expect(readScimFilter('(title pr or userName eq "a") and displayName eq "b"', 'User')).to.deep.equal({
        op: 'and',
        filters: [
          {
            op: 'or',
            filters: [
              { op: 'pr', attribute: 'title' },
              { op: 'eq', attribute: 'userName', value: 'a' },
            ],
          },
          { op: 'eq', attribute: 'displayName', value: 'b' },
        ],
      });
    });

    it('collects a chain of one operator into one list', () => {
      const filter = readScimFilter('title pr and userName pr AND displayName pr', 'User');
      expect(filter).to.deep.equal({
        op: 'and',
        filters: [
          { op: 'pr', attribute: 'title' },
          { op: 'pr', attribute: 'userName' },
          { op: 'pr', attribute: 'displayName' },
        ],
      });
    });

    it('reads not ( ) and refuses not without parentheses', () => {
      expect(readScimFilter('NOT (active eq false)', 'User')).to.deep.equal({
        op: 'not',
        filter: { op: 'eq', attribute: 'active', value: false },
      });
      const error = expectScimError(() => readScimFilter('not active eq false', 'User'), 400, 'invalidFilter');
      expect(error.detail).to.equal('"not" must be followed by a filter in parentheses.');
    });

    it('decodes JSON string escapes', () => {
      expect(readScimFilter('userName eq "DOMAIN\\\\bjensen \\"B\\" \\u00e9"', 'User')).to.deep.equal({
        op: 'eq',
        attribute: 'userName',
        value: 'DOMAIN\\bjensen "B" é',
      });
    });
  });

  describe('attributes', () => {
    it('matches names without regard to letter case and spells them the one way', () => {
      expect(readScimFilter('USERNAME eq "a"', 'User')).to.deep.equal({ op: 'eq', attribute: 'userName', value: 'a' });
      expect(readScimFilter('Name.GivenName eq "a"', 'User')).to.deep.equal({
        op: 'eq',
        attribute: 'name.givenName',
        value: 'a',
      });
      expect(readScimFilter('externalid eq "0a21f0f2"', 'User')).to.deep.equal({
        op: 'eq',
        attribute: 'externalId',
        value: '0a21f0f2',
      });
    });

    it('reads the enterprise extension qualified by its URN, or bare', () => {
      expect(readScimFilter(`${ENTERPRISE}:department eq "Sales"`, 'User')).to.deep.equal({
        op: 'eq',
        attribute: 'department',
        value: 'Sales',
      });
      expect(readScimFilter(`${ENTERPRISE.toUpperCase()}:manager.value eq "26118915"`, 'User')).to.deep.equal({
        op: 'eq',
        attribute: 'manager.value',
        value: '26118915',
      });
      expect(readScimFilter('employeeNumber eq "701984"', 'User')).to.deep.equal({
        op: 'eq',
        attribute: 'employeeNumber',
        value: '701984',
      });
    });

    it('refuses a core attribute qualified by the extension, and an extension attribute by the core URN', () => {
      expectScimError(() => readScimFilter(`${ENTERPRISE}:userName eq "a"`, 'User'), 400, 'invalidFilter');
      expectScimError(
        () => readScimFilter('urn:ietf:params:scim:schemas:core:2.0:User:department eq "a"', 'User'),
        400,
        'invalidFilter',
      );
      expectScimError(
        () => readScimFilter('urn:ietf:params:scim:schemas:core:2.0:Group:userName eq "a"', 'User'),
        400,
        'invalidFilter',
      );
    });

    it('reads emails as emails.value, and emails[...] as has', () => {
      expect(readScimFilter('emails eq "b@example.com"', 'User')).to.deep.equal({
        op: 'eq',
        attribute: 'emails.value',
        value: 'b@example.com',
      });
      expect(readScimFilter('emails[type eq "work"]', 'User')).to.deep.equal({
        op: 'has',
        attribute: 'emails',
        filter: { op: 'eq', attribute: 'emails.type', value: 'work' },
      });
      expect(readScimFilter('emails[not (primary eq true)]', 'User')).to.deep.equal({
        op: 'has',
        attribute: 'emails',
        filter: { op: 'not', filter: { op: 'eq', attribute: 'emails.primary', value: true } },
      });
    });

    it('reads Entra ID\'s emails[type eq "work"].value eq "..." as the value filter it means', () => {
      expect(readScimFilter('emails[type eq "work"].value eq "u@example.com"', 'User')).to.deep.equal({
        op: 'has',
        attribute: 'emails',
        filter: {
          op: 'and',
          filters: [
            { op: 'eq', attribute: 'emails.type', value: 'work' },
            { op: 'eq', attribute: 'emails.value', value: 'u@example.com' },
          ],
        },
      });
      expect(readScimFilter('emails[type eq "work"].value pr', 'User')).to.deep.equal({
        op: 'has',
        attribute: 'emails',
        filter: {
          op: 'and',
          filters: [
            { op: 'eq', attribute: 'emails.type', value: 'work' },
            { op: 'pr', attribute: 'emails.value' },
          ],
        },
      });
      expectScimError(() => readScimFilter('emails[type eq "work"].display eq "x"', 'User'), 400, 'invalidFilter');
      expectScimError(() => readScimFilter('emails[type eq "work"].value', 'User'), 400, 'invalidFilter');
    });

    it('reads the manager compared whole as its value (Entra ID\'s manager eq "id"), bare or qualified', () => {
      const managerIs = { op: 'eq', attribute: 'manager.value', value: '2819c223' };
      expect(readScimFilter('manager eq "2819c223"', 'User')).to.deep.equal(managerIs);
      expect(readScimFilter(`${ENTERPRISE}:manager eq "2819c223"`, 'User')).to.deep.equal(managerIs);
      expect(readScimFilter('id eq "x" and manager eq "2819c223"', 'User')).to.deep.equal({
        op: 'and',
        filters: [{ op: 'eq', attribute: 'id', value: 'x' }, managerIs],
      });
      expectScimError(
        () => readScimFilter('urn:ietf:params:scim:schemas:core:2.0:User:manager eq "x"', 'User'),
        400,
        'invalidFilter',
      );
    });

    it('reads the group attributes, members by value', () => {
      expect(readScimFilter('displayName eq "Admins"', 'Group')).to.deep.equal({
        op: 'eq',
        attribute: 'displayName',
        value: 'Admins',
      });
      expect(readScimFilter('members[value eq "2819c223"]', 'Group')).to.deep.equal({
        op: 'has',
        attribute: 'members',
        filter: { op: 'eq', attribute: 'members.value', value: '2819c223' },
      });
      expect(readScimFilter('members.value eq "2819c223"', 'Group')).to.deep.equal({
        op: 'eq',
        attribute: 'members.value',
        value: '2819c223',
      });
      expect(readScimFilter('urn:ietf:params:scim:schemas:core:2.0:Group:externalId eq "x"', 'Group')).to.deep.equal({
        op: 'eq',
        attribute: 'externalId',
        value: 'x',
      });
    });

    it('refuses user attributes in a group filter and group ones in a user filter', () => {
      expectScimError(() => readScimFilter('userName eq "a"', 'Group'), 400, 'invalidFilter');
      expectScimError(() => readScimFilter('members[value eq "a"]', 'User'), 400, 'invalidFilter');
      expectScimError(() => readScimFilter('emails[type eq "work"]', 'Group'), 400, 'invalidFilter');
    });

    it('refuses a value filter naming its sub-attributes qualified, or naming what the attribute lacks', () => {
      expectScimError(() => readScimFilter('emails[emails.type eq "work"]', 'User'), 400, 'invalidFilter');
      expectScimError(() => readScimFilter('emails[display eq "work"]', 'User'), 400, 'invalidFilter');
      expectScimError(() => readScimFilter('members[display eq "x"]', 'Group'), 400, 'invalidFilter');
    });

    it('refuses a value filter inside a value filter', () => {
      expectScimError(
        () => readScimFilter('emails[type eq "work" and emails[value pr]]', 'User'),
        400,
        'invalidFilter',
      );
    });
  });

  describe('values', () => {
    it('compares booleans with booleans; Entra ID\'s "True" and "False" count as booleans', () => {
      expect(readScimFilter('active eq true', 'User')).to.deep.equal({ op: 'eq', attribute: 'active', value: true });
      expect(readScimFilter('active eq "True"', 'User')).to.deep.equal({ op: 'eq', attribute: 'active', value: true });
      expect(readScimFilter('active ne "FALSE"', 'User')).to.deep.equal({
        op: 'ne',
        attribute: 'active',
        value: false,
      });
    });

    for (const text of [
      'active eq "x"',
      'active eq 1',
      'active gt true',
      'active co "t"',
      'userName eq 1',
      'userName eq true',
      'userName eq null',
      'externalId eq 123',
      'meta.created gt "yesterday"',
      'meta.created gt 1715000000',
      'meta.created co "2024"',
      'emails[primary eq "yes"]',
      'userName eq True2',
      'userName eq 1e400',
    ]) {
      it(`refuses a value of the wrong type: ${text}`, () => {
        expectScimError(() => readScimFilter(text, 'User'), 400, 'invalidFilter');
      });
    }

    it('says how to test for no value when compared with null', () => {
      const error = expectScimError(() => readScimFilter('title eq null', 'User'), 400, 'invalidFilter');
      expect(error.detail).to.equal('Compare title with a value; to test for no value use "not (title pr)".');
    });

    it('passes times on as ISO 8601 in UTC', () => {
      expect(readScimFilter('meta.created ge "2024-05-13T06:42:34+02:00"', 'User')).to.deep.equal({
        op: 'ge',
        attribute: 'meta.created',
        value: '2024-05-13T04:42:34.000Z',
      });
    });
  });

  describe('malformed filters', () => {
    for (const text of [
      '',
      '   ',
      'userName',
      'userName eq',
      'userName eq "unclosed',
      'userName xx "a"',
      'userName eq "a" and',
      'userName eq "a" or or title pr',
      '(userName eq "a"',
      'userName eq "a")',
      'emails[type eq "work"',
      'emails[type eq "work"] eq "a"',
      'userName eq "a" title pr',
      '"userName" eq "a"',
      'user name eq "a"',
      '1userName eq "a"',
      'userName eq "a\\x"',
      'userName eq "a\u0001"',
      'userName\neq "a"',
    ]) {
      it(`refuses ${JSON.stringify(text)} with invalidFilter`, () => {
        expectScimError(() => readScimFilter(text, 'User'), 400, 'invalidFilter');
      });
    }
  });

  describe('hostile filters', () => {
    it('refuses text over 1,024 characters before reading it', () => {
      const long = `userName eq "${'a'.repeat(1011)}"`;
      expect(long.length).to.equal(1025);
      const error = expectScimError(() => readScimFilter(long, 'User'), 400, 'invalidFilter');
      expect(error.detail).to.match(/1024/);
      expect(() => readScimFilter(long.slice(0, 1023) + '"', 'User')).not.to.throw();
    });

    it('refuses nesting deeper than 8', () => {
      const nested = (depth: number) => `${'('.repeat(depth)}userName eq "a"${')'.repeat(depth)}`;
      expect(() => readScimFilter(nested(8), 'User')).not.to.throw();
      expectScimError(() => readScimFilter(nested(9), 'User'), 400, 'invalidFilter');
      const nots = (depth: number) => `${'not ('.repeat(depth)}userName eq "a"${')'.repeat(depth)}`;
      expect(() => readScimFilter(nots(8), 'User')).not.to.throw();
      expectScimError(() => readScimFilter(nots(9), 'User'), 400, 'invalidFilter');
      expectScimError(() => readScimFilter(`${'('.repeat(500)}`, 'User'), 400, 'invalidFilter');
    });

    it('counts a value filter as one level of nesting', () => {
      const inBrackets = `${'('.repeat(7)}emails[type eq "work"]${')'.repeat(7)}`;
      expect(() => readScimFilter(inBrackets, 'User')).not.to.throw();
      expectScimError(() => readScimFilter(`(${inBrackets})`, 'User'), 400, 'invalidFilter');
    });

    it('refuses more than 32 comparisons', () => {
      const comparisons = (count: number) => Array.from({ length: count }, () => 'title pr').join(' or ');
      expect(() => readScimFilter(comparisons(32), 'User')).not.to.throw();
      expectScimError(() => readScimFilter(comparisons(33), 'User'), 400, 'invalidFilter');
    });

    it('reads an unclosed string full of line breaks at once (no backtracking)', () => {
      const started = performance.now();
      expectScimError(() => readScimFilter(`userName eq "${'\\n'.repeat(400)}`, 'User'), 400, 'invalidFilter');
      expectScimError(() => readScimFilter(`emails[type eq "${'\n'.repeat(900)}`, 'User'), 400, 'invalidFilter');
      expect(performance.now() - started).to.be.below(50);
    });

    it('never repeats a value of the filter in its detail', () => {
      const secret = 'S3cr3t-sentinel-value';
      for (const text of [
        `password eq "${secret}"`,
        `active eq "${secret}"`,
        `userName eq "${secret}" and`,
        `userName eq "${secret}`,
        `userName eq ${secret}`,
        `meta.created gt "${secret}"`,
      ]) {
        const error = expectScimError(() => readScimFilter(text, 'User'), 400, 'invalidFilter');
        expect(error.detail).not.to.include(secret);
        expect(error.message).not.to.include(secret);
      }
    });

    it('does not repeat a long attribute name', () => {
      const name = `a${'b'.repeat(300)}`;
      const error = expectScimError(() => readScimFilter(`${name} eq "x"`, 'User'), 400, 'invalidFilter');
      expect(error.detail).not.to.include(name);
      expect(error.detail.length).to.be.below(200);
    });
  });
});
