import { expect } from 'chai';
import type {
  DirectoryFilter,
  GroupAttribute,
  UserAttribute,
} from '../../../../src/domain/directory/directory-filter.js';
import type { UserAttributes } from '../../../../src/domain/directory/directory-resources.js';
import { MINUTE, T0, organization, userAttributes, written, type ContractStores } from './contract-stores.js';

type UserFilter = DirectoryFilter<UserAttribute>;
type GroupFilter = DirectoryFilter<GroupAttribute>;

const iso = (at: number) => new Date(at).toISOString();

/** The users the filters are tried on, created a minute apart in this order. */
const PEOPLE: Record<string, UserAttributes> = {
  alice: userAttributes('Alice@Example.com', {
    externalId: 'EXT-A',
    displayName: 'Alice Smith',
    title: 'Engineer',
    name: { givenName: 'Alice', familyName: 'Smith', formatted: 'Alice Smith' },
    emails: [
      { value: 'alice@example.com', type: 'work', primary: true },
      { value: 'a.smith@home.org', type: 'home' },
    ],
    enterprise: { department: 'R&D', employeeNumber: '100', manager: { value: 'mgr-1' } },
  }),
  bob: userAttributes('bob@example.com', {
    externalId: 'ext-b',
    active: false,
    displayName: 'Bob 100% Real_Name (Sales\\Ops)',
    title: '',
    emails: [{ value: 'Bob@Example.COM', type: 'work' }],
    enterprise: { department: 'Sales', employeeNumber: '200' },
  }),
  carol: userAttributes('carol'),
  dan: userAttributes('dan_x', {
    title: 'Engineer Lead',
    emails: [{ value: 'dan@other.net', type: 'home', primary: false }],
  }),
};

const eq = (attribute: UserAttribute, value: string | boolean | null): UserFilter => ({ op: 'eq', attribute, value });

export function filtersContract(stores: ContractStores): void {
  describe('filters', () => {
    const org = organization();
    const ids: Record<string, string> = {};
    const groupIds: Record<string, string> = {};
    /** The names of the users matching, in the order of creation. */
    const usersMatching = async (filter: UserFilter) => {
      const page = await stores.store.findUsers(org, { filter, startIndex: 1, count: 100 });
      const names = page.resources.map((user) => Object.keys(ids).find((name) => ids[name] === user.id));
      expect(page.total, 'total').to.equal(names.length);
      return names;
    };
    const groupsMatching = async (filter: GroupFilter) => {
      const page = await stores.store.findGroups(org, { filter, startIndex: 1, count: 100 });
      return page.resources.map((group) => group.attributes.displayName);
    };

    before(async () => {
      let minute = 0;
      for (const [name, attributes] of Object.entries(PEOPLE)) {
        ids[name] = written(await stores.store.createUser(org, attributes, T0 + minute * MINUTE)).id;
        minute += 1;
      }
      await stores.store.replaceUser(org, ids.carol!, PEOPLE.carol!, undefined, T0 + 10 * MINUTE);
      // Another organization's look-alike, which no filter of this one may find.
      await stores.store.createUser(organization(), PEOPLE.alice!, T0);
      for (const [displayName, externalId, members] of [
        ['Engineering', 'G-ENG', [ids.alice!, ids.dan!]],
        ['Sales', undefined, [ids.bob!]],
        ['Empty', undefined, []],
      ] as const) {
        const attributes = externalId ? { displayName, externalId } : { displayName };
        groupIds[displayName] = written(await stores.store.createGroup(org, attributes, members, T0)).id;
      }
    });

    const userCases: Array<[string, () => UserFilter, string[]]> = [
      ['userName eq, letter case ignored', () => eq('userName', 'alice@EXAMPLE.com'), ['alice']],
      ['externalId eq, case-exact', () => eq('externalId', 'EXT-A'), ['alice']],
      ['externalId eq in another case', () => eq('externalId', 'ext-a'), []],
      ['id eq', () => eq('id', ids.bob!), ['bob']],
      ['id eq, case-exact', () => eq('id', ids.bob!.toUpperCase()), []],
      ['id eq something that is no id', () => eq('id', 'bob'), []],
      [
        'ne (an absent or empty value is not equal)',
        () => ({ op: 'ne', attribute: 'title', value: 'engineer' }),
        ['bob', 'carol', 'dan'],
      ],
      ['co', () => ({ op: 'co', attribute: 'displayName', value: 'SMITH' }), ['alice']],
      ['co with % taken as itself', () => ({ op: 'co', attribute: 'displayName', value: '%' }), ['bob']],
      ['co with _ taken as itself', () => ({ op: 'co', attribute: 'displayName', value: 'l_n' }), ['bob']],
      ['co with \\ taken as itself', () => ({ op: 'co', attribute: 'displayName', value: 's\\o' }), ['bob']],
      ['sw', () => ({ op: 'sw', attribute: 'userName', value: 'ALICE' }), ['alice']],
      ['sw with _ taken as itself', () => ({ op: 'sw', attribute: 'userName', value: 'dan_' }), ['dan']],
      ['sw with _ that would match any letter', () => ({ op: 'sw', attribute: 'userName', value: 'c_rol' }), []],
      ['ew', () => ({ op: 'ew', attribute: 'userName', value: '@EXAMPLE.COM' }), ['alice', 'bob']],
      [
        'gt on a string, lexically',
        () => ({ op: 'gt', attribute: 'userName', value: 'bob@example.com' }),
        ['carol', 'dan'],
      ],
      [
        'ge on a string',
        () => ({ op: 'ge', attribute: 'userName', value: 'BOB@example.com' }),
        ['bob', 'carol', 'dan'],
      ],
      ['lt on a string', () => ({ op: 'lt', attribute: 'userName', value: 'Bob' }), ['alice']],
      ['le on a string', () => ({ op: 'le', attribute: 'userName', value: 'bob@example.com' }), ['alice', 'bob']],
      ['eq on meta.created', () => eq('meta.created', iso(T0)), ['alice']],
      [
        'gt on meta.created',
        () => ({ op: 'gt', attribute: 'meta.created', value: iso(T0 + MINUTE) }),
        ['carol', 'dan'],
      ],
      [
        'ge on meta.created',
        () => ({ op: 'ge', attribute: 'meta.created', value: iso(T0 + MINUTE) }),
        ['bob', 'carol', 'dan'],
      ],
      ['lt on meta.created', () => ({ op: 'lt', attribute: 'meta.created', value: iso(T0 + MINUTE) }), ['alice']],
      [
        'le on meta.created',
        () => ({ op: 'le', attribute: 'meta.created', value: iso(T0 + MINUTE) }),
        ['alice', 'bob'],
      ],
      [
        'gt on meta.lastModified, another zone',
        () => ({ op: 'gt', attribute: 'meta.lastModified', value: '2026-11-01T13:05:00+01:00' }),
        ['carol'],
      ],
      ['pr (an empty string is absent)', () => ({ op: 'pr', attribute: 'title' }), ['alice', 'dan']],
      ['pr externalId', () => ({ op: 'pr', attribute: 'externalId' }), ['alice', 'bob']],
      ['pr emails.value', () => ({ op: 'pr', attribute: 'emails.value' }), ['alice', 'bob', 'dan']],
      ['active eq false', () => eq('active', false), ['bob']],
      ['active eq true', () => eq('active', true), ['alice', 'carol', 'dan']],
      ['name.givenName', () => eq('name.givenName', 'alice'), ['alice']],
      ['name.familyName', () => ({ op: 'sw', attribute: 'name.familyName', value: 'SMI' }), ['alice']],
      ['name.formatted', () => ({ op: 'co', attribute: 'name.formatted', value: 'e s' }), ['alice']],
      ['title', () => eq('title', 'ENGINEER'), ['alice']],
      ['department', () => eq('department', 'r&d'), ['alice']],
      ['employeeNumber', () => eq('employeeNumber', '200'), ['bob']],
      ['manager.value', () => eq('manager.value', 'mgr-1'), ['alice']],
      ['emails.value eq: any e-mail, letter case ignored', () => eq('emails.value', 'BOB@example.com'), ['bob']],
      ['emails.value eq: not only the first', () => eq('emails.value', 'a.smith@home.org'), ['alice']],
      ['emails.value co', () => ({ op: 'co', attribute: 'emails.value', value: 'EXAMPLE' }), ['alice', 'bob']],
      ['emails.type eq', () => eq('emails.type', 'home'), ['alice', 'dan']],
      ['emails.primary eq true', () => eq('emails.primary', true), ['alice']],
      [
        'and',
        () => ({ op: 'and', filters: [{ op: 'sw', attribute: 'title', value: 'engineer' }, eq('active', true)] }),
        ['alice', 'dan'],
      ],
      ['or', () => ({ op: 'or', filters: [eq('userName', 'carol'), eq('externalId', 'ext-b')] }), ['bob', 'carol']],
      [
        'not (an absent value is not equal)',
        () => ({ op: 'not', filter: eq('title', 'Engineer') }),
        ['bob', 'carol', 'dan'],
      ],
      [
        'not emails.value eq',
        () => ({ op: 'not', filter: eq('emails.value', 'alice@example.com') }),
        ['bob', 'carol', 'dan'],
      ],
      [
        'not of and',
        () => ({
          op: 'not',
          filter: { op: 'and', filters: [eq('active', true), { op: 'pr', attribute: 'emails.value' }] },
        }),
        ['bob', 'carol'],
      ],
      [
        'has: one e-mail matching both',
        () => ({
          op: 'has',
          attribute: 'emails',
          filter: {
            op: 'and',
            filters: [eq('emails.type', 'work'), { op: 'co', attribute: 'emails.value', value: 'example' }],
          },
        }),
        ['alice', 'bob'],
      ],
      [
        'has: two e-mails matching one each are no match',
        () => ({
          op: 'has',
          attribute: 'emails',
          filter: {
            op: 'and',
            filters: [eq('emails.type', 'work'), { op: 'ew', attribute: 'emails.value', value: '.org' }],
          },
        }),
        [],
      ],
      [
        'has with not inside',
        () => ({ op: 'has', attribute: 'emails', filter: { op: 'not', filter: eq('emails.type', 'work') } }),
        ['alice', 'dan'],
      ],
      [
        'has with or inside',
        () => ({
          op: 'has',
          attribute: 'emails',
          filter: { op: 'or', filters: [eq('emails.primary', true), eq('emails.value', 'dan@other.net')] },
        }),
        ['alice', 'dan'],
      ],
      [
        'nested',
        () => ({
          op: 'and',
          filters: [
            {
              op: 'or',
              filters: [
                { op: 'sw', attribute: 'userName', value: 'a' },
                { op: 'sw', attribute: 'userName', value: 'b' },
              ],
            },
            { op: 'not', filter: eq('active', false) },
          ],
        }),
        ['alice'],
      ],
    ];
    for (const [name, filter, expected] of userCases) {
      it(`users: ${name}`, async () => {
        expect(await usersMatching(filter())).to.deep.equal(expected);
      });
    }

    const groupCases: Array<[string, () => GroupFilter, string[]]> = [
      [
        'displayName eq, letter case ignored',
        () => ({ op: 'eq', attribute: 'displayName', value: 'ENGINEERING' }),
        ['Engineering'],
      ],
      ['displayName sw', () => ({ op: 'sw', attribute: 'displayName', value: 'e' }), ['Engineering', 'Empty']],
      ['externalId eq, case-exact', () => ({ op: 'eq', attribute: 'externalId', value: 'g-eng' }), []],
      ['externalId pr', () => ({ op: 'pr', attribute: 'externalId' }), ['Engineering']],
      ['id eq', () => ({ op: 'eq', attribute: 'id', value: groupIds.Sales! }), ['Sales']],
      ['members.value eq', () => ({ op: 'eq', attribute: 'members.value', value: ids.dan! }), ['Engineering']],
      ['members.value pr', () => ({ op: 'pr', attribute: 'members.value' }), ['Engineering', 'Sales']],
      [
        'has members',
        () => ({ op: 'has', attribute: 'members', filter: { op: 'eq', attribute: 'members.value', value: ids.bob! } }),
        ['Sales'],
      ],
      [
        'not members.value eq',
        () => ({ op: 'not', filter: { op: 'eq', attribute: 'members.value', value: ids.alice! } }),
        ['Sales', 'Empty'],
      ],
      [
        'meta.created le',
        () => ({ op: 'le', attribute: 'meta.created', value: iso(T0) }),
        ['Engineering', 'Sales', 'Empty'],
      ],
      ['meta.lastModified gt', () => ({ op: 'gt', attribute: 'meta.lastModified', value: iso(T0) }), []],
    ];
    for (const [name, filter, expected] of groupCases) {
      it(`groups: ${name}`, async () => {
        expect(await groupsMatching(filter())).to.deep.equal(expected);
      });
    }
  });
}
