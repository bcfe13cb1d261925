import { expect } from 'chai';
import { amazonProfileClaims } from '../../../src/adapters/amazon/amazon-profile.js';
import { githubUserClaims, verifiedGitHubEmail } from '../../../src/adapters/github/github-user.js';
import { graphUserClaims } from '../../../src/adapters/microsoft/microsoft-graph-user.js';
import { GatehouseError } from '../../../src/domain/errors.js';

type Case = [label: string, json: unknown, expected: unknown];

function table(name: string, narrow: (json: unknown) => unknown, accepted: Case[], refused: Array<[string, unknown]>) {
  describe(name, () => {
    for (const [label, json, expected] of accepted) {
      it(`reads ${label}`, () => expect(narrow(json)).to.deep.equal(expected));
    }
    for (const [label, json] of refused) {
      it(`refuses ${label} as idp.userinfo_failed (never coerced)`, () => {
        let thrown: unknown;
        try {
          narrow(json);
        } catch (err) {
          thrown = err;
        }
        expect(thrown).to.be.instanceOf(GatehouseError);
        expect((thrown as GatehouseError).code).to.equal('idp.userinfo_failed');
        // The message names the field, never the value.
        expect((thrown as GatehouseError).message).not.to.match(/SENTINEL/);
      });
    }
  });
}

table(
  'Microsoft Graph GET /me',
  graphUserClaims,
  [
    [
      'a work account: id and the naming fields, nothing else',
      {
        '@odata.context': 'x',
        id: '6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f',
        displayName: 'Ada Admin',
        givenName: 'Ada',
        surname: 'Admin',
        mail: 'ada@example.test',
        userPrincipalName: 'ada@contoso.example',
        businessPhones: ['+1 555'],
        jobTitle: null,
      },
      {
        id: '6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f',
        displayName: 'Ada Admin',
        givenName: 'Ada',
        surname: 'Admin',
        mail: 'ada@example.test',
        userPrincipalName: 'ada@contoso.example',
      },
    ],
    [
      'a personal account with mail null',
      { id: '00000000-0000-0000-4d2a-7be91c3f5a60', mail: null, userPrincipalName: 'uma@outlook.example' },
      { id: '00000000-0000-0000-4d2a-7be91c3f5a60', userPrincipalName: 'uma@outlook.example' },
    ],
  ],
  [
    ['no id', { displayName: 'Ada' }],
    ['an empty id', { id: '' }],
    ['a numeric id', { id: 42 }],
    ['a mail that is not a string', { id: 'a', mail: ['SENTINEL@example.test'] }],
    ['an array', [{ id: 'a' }]],
    ['null', null],
  ],
);

table(
  'Login with Amazon customer profile',
  amazonProfileClaims,
  [
    [
      'user_id, name, email and postal_code',
      { user_id: 'amzn1.account.AF2E', name: 'Ada', email: 'ada@example.test', postal_code: '98052' },
      { user_id: 'amzn1.account.AF2E', name: 'Ada', email: 'ada@example.test', postal_code: '98052' },
    ],
    ['user_id alone (scope profile:user_id)', { user_id: 'amzn1.account.AF2E' }, { user_id: 'amzn1.account.AF2E' }],
  ],
  [
    ['a sub instead of user_id', { sub: 'amzn1.account.AF2E', name: 'Ada' }],
    ['a numeric user_id', { user_id: 1234 }],
    ['a name that is an object', { user_id: 'amzn1.account.AF2E', name: { first: 'SENTINEL' } }],
  ],
);

table(
  'GitHub GET /user',
  githubUserClaims,
  [
    [
      'the numeric id as text, login and name; never the public email',
      { login: 'octocat', id: 583231, name: 'The Octocat', email: 'octo@example.test', node_id: 'MDQ6' },
      { id: '583231', login: 'octocat', name: 'The Octocat' },
    ],
    ['a null name', { login: 'octocat', id: 1, name: null }, { id: '1', login: 'octocat' }],
  ],
  [
    ['an id of digits in a string', { login: 'octocat', id: '583231' }],
    ['a fractional id', { login: 'octocat', id: 1.5 }],
    ['a zero id', { login: 'octocat', id: 0 }],
    ['no login', { id: 1 }],
    ['a name that is a number', { login: 'octocat', id: 1, name: 7 }],
  ],
);

const entry = (email: string, primary: boolean, verified: boolean) => ({ email, primary, verified, visibility: null });
table(
  'GitHub GET /user/emails',
  verifiedGitHubEmail,
  [
    [
      'the verified primary',
      [entry('b@example.test', false, true), entry('a@example.test', true, true)],
      'a@example.test',
    ],
    [
      'the first verified when the primary is not verified',
      [
        entry('p@example.test', true, false),
        entry('v@example.test', false, true),
        entry('w@example.test', false, true),
      ],
      'v@example.test',
    ],
    ['nothing when none is verified', [entry('p@example.test', true, false)], undefined],
    ['nothing from an empty list', [], undefined],
  ],
  [
    ['verified as a string', [{ email: 'a@example.test', primary: true, verified: 'true' }]],
    ['an entry without email', [{ primary: true, verified: true }]],
    ['an object instead of a list', { email: 'a@example.test', primary: true, verified: true }],
    ['a malformed entry beside a good one', [entry('a@example.test', true, true), 'SENTINEL@example.test']],
  ],
);
