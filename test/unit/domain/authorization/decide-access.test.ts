import { expect } from 'chai';
import {
  AUTHENTICATION_DISABLED,
  decideEndpointAccess,
  effectiveAccess,
  missingPolicies,
  type AccessContext,
  type AccessDecision,
} from '../../../../src/domain/authorization/decide-access.js';
import {
  allowAnonymous,
  authorize,
  type EndpointMetadata,
} from '../../../../src/domain/authorization/endpoint-metadata.js';
import { builtInPolicies } from '../../../../src/domain/authorization/policies.js';
import { PolicyNames } from '../../../../src/domain/authorization/policy-names.js';
import type { Principal } from '../../../../src/domain/claims/principal.js';
import type { AuthorizationSettings } from '../../../../src/domain/settings/settings.js';
import { codeOf, starterAuthorization, userWith } from './principals.js';

const { AdministratorRole: ADMIN, ManageApplicationPermission: MANAGE } = PolicyNames;

const metadataKinds: ReadonlyArray<[label: string, metadata: EndpointMetadata | undefined]> = [
  ['no metadata', undefined],
  ['anonymous', allowAnonymous()],
  ['authorize()', authorize()],
  ['authorize(admin)', authorize(ADMIN)],
  ['authorize(admin, manage)', authorize(ADMIN, MANAGE)],
];

const principals: ReadonlyArray<[label: string, principal: Principal | undefined]> = [
  ['anonymous', undefined],
  ['plain user', userWith(['application:subject', 'u1'])],
  ['administrator', userWith(['application:role', 'Administrator'])],
  [
    'administrator and manager',
    userWith(['application:role', 'Administrator'], ['application:permission', 'application.manage']),
  ],
];

const allow: AccessDecision = { outcome: 'allow' };
const challenge: AccessDecision = { outcome: 'challenge' };
const forbid = (...failed: string[]): AccessDecision => ({ outcome: 'forbid', failed });

/** Expected outcome per metadata kind (rows) and principal (columns, in `principals` order). */
function expectations(requireAuthenticatedUserByDefault: boolean): Record<string, AccessDecision[]> {
  return {
    'no metadata': requireAuthenticatedUserByDefault ? [challenge, allow, allow, allow] : [allow, allow, allow, allow],
    anonymous: [allow, allow, allow, allow],
    'authorize()': [challenge, allow, allow, allow],
    'authorize(admin)': [challenge, forbid(ADMIN), allow, allow],
    'authorize(admin, manage)': [challenge, forbid(ADMIN, MANAGE), forbid(MANAGE), allow],
  };
}

function context(authorization: AuthorizationSettings, authenticationEnabled = true): AccessContext {
  return {
    requireAuthenticatedUserByDefault: authorization.RequireAuthenticatedUserByDefault,
    authenticationEnabled,
    policies: builtInPolicies(authorization),
  };
}

describe('decideEndpointAccess', () => {
  for (const fallback of [true, false]) {
    describe(`with RequireAuthenticatedUserByDefault ${fallback}`, () => {
      const ctx = context({ ...starterAuthorization, RequireAuthenticatedUserByDefault: fallback });
      const expected = expectations(fallback);
      for (const [metadataLabel, metadata] of metadataKinds) {
        principals.forEach(([principalLabel, principal], column) => {
          const outcome = expected[metadataLabel]?.[column];
          it(`${metadataLabel}, ${principalLabel} -> ${JSON.stringify(outcome)}`, () => {
            expect(decideEndpointAccess(metadata, principal, ctx)).to.deep.equal(outcome);
          });
        });
      }
    });
  }

  describe('custom claim types and several administrator roles', () => {
    const ctx = context({
      ...starterAuthorization,
      RoleClaimType: 'roles',
      PermissionClaimType: 'scp',
      AdministratorRoles: ['Administrator', 'Owner', 'Ops'],
      ManageApplicationPermissions: ['app.manage', 'app.admin'],
    });
    const cases: ReadonlyArray<
      [label: string, metadata: EndpointMetadata, principal: Principal, expected: AccessDecision]
    > = [
      ['first administrator role', authorize(ADMIN), userWith(['roles', 'Administrator']), allow],
      ['third administrator role', authorize(ADMIN), userWith(['roles', 'Ops']), allow],
      ['non-administrator role', authorize(ADMIN), userWith(['roles', 'Reader']), forbid(ADMIN)],
      [
        'role under the default claim type no longer counts',
        authorize(ADMIN),
        userWith(['application:role', 'Administrator']),
        forbid(ADMIN),
      ],
      ['second manage permission', authorize(MANAGE), userWith(['scp', 'app.admin']), allow],
      [
        'permission under the default claim type no longer counts',
        authorize(MANAGE),
        userWith(['application:permission', 'app.manage']),
        forbid(MANAGE),
      ],
      [
        'permission value under the role type does not count',
        authorize(MANAGE),
        userWith(['roles', 'app.manage']),
        forbid(MANAGE),
      ],
    ];
    for (const [label, metadata, principal, expected] of cases) {
      it(label, () => {
        expect(decideEndpointAccess(metadata, principal, ctx)).to.deep.equal(expected);
      });
    }
  });

  describe('unknown policy', () => {
    const ctx = context(starterAuthorization);
    for (const [label, principal] of principals) {
      it(`throws config.unknown_policy for ${label}`, () => {
        expect(codeOf(() => decideEndpointAccess(authorize(ADMIN, 'app.Typo'), principal, ctx))).to.equal(
          'config.unknown_policy',
        );
      });
    }
    it('throws even when authentication is disabled', () => {
      const disabled = context({ ...starterAuthorization, RequireAuthenticatedUserByDefault: false }, false);
      expect(codeOf(() => decideEndpointAccess(authorize('app.Typo'), undefined, disabled))).to.equal(
        'config.unknown_policy',
      );
    });
  });

  describe('authentication disabled', () => {
    const cases: ReadonlyArray<
      [label: string, metadata: EndpointMetadata | undefined, fallback: boolean, expected: AccessDecision]
    > = [
      ['anonymous endpoint', allowAnonymous(), false, allow],
      ['no metadata, fallback off (--authProvider none)', undefined, false, allow],
      // Startup rejects this combination; the decision still must not challenge.
      ['no metadata, fallback on', undefined, true, forbid(AUTHENTICATION_DISABLED)],
      ['default policy', authorize(), false, forbid(AUTHENTICATION_DISABLED)],
      ['named policy', authorize(ADMIN), false, forbid(AUTHENTICATION_DISABLED)],
    ];
    for (const [label, metadata, fallback, expected] of cases) {
      for (const [principalLabel, principal] of principals) {
        it(`${label}, ${principalLabel} -> ${JSON.stringify(expected)}`, () => {
          const ctx = context({ ...starterAuthorization, RequireAuthenticatedUserByDefault: fallback }, false);
          expect(decideEndpointAccess(metadata, principal, ctx)).to.deep.equal(expected);
        });
      }
    }
    it('names the reason authentication.disabled', () => {
      expect(AUTHENTICATION_DISABLED).to.equal('authentication.disabled');
    });
  });
});

describe('missingPolicies', () => {
  const registry = builtInPolicies(starterAuthorization);
  const cases: ReadonlyArray<[label: string, metadata: EndpointMetadata | undefined, expected: string[]]> = [
    ['no metadata', undefined, []],
    ['anonymous', allowAnonymous(), []],
    ['default policy', authorize(), []],
    ['known names', authorize(ADMIN, MANAGE), []],
    ['unknown names', authorize(ADMIN, 'app.Typo', 'app.Other'), ['app.Typo', 'app.Other']],
  ];
  for (const [label, metadata, expected] of cases) {
    it(`finds ${JSON.stringify(expected)} for ${label}`, () => {
      expect(missingPolicies(metadata, registry)).to.deep.equal(expected);
    });
  }
});

describe('effectiveAccess', () => {
  const cases: ReadonlyArray<[metadata: EndpointMetadata | undefined, fallback: boolean, expected: string]> = [
    [allowAnonymous(), true, 'anonymous'],
    [allowAnonymous(), false, 'anonymous'],
    [authorize(), true, 'default policy (authenticated user)'],
    [authorize(), false, 'default policy (authenticated user)'],
    [authorize('a', 'b'), true, 'policies: a, b'],
    [authorize('a'), false, 'policies: a'],
    [undefined, true, 'fallback: authenticated user'],
    [undefined, false, 'fallback: none (public)'],
  ];
  for (const [metadata, fallback, expected] of cases) {
    it(`describes ${JSON.stringify(metadata)} with fallback ${fallback} as "${expected}"`, () => {
      expect(effectiveAccess(metadata, fallback)).to.equal(expected);
    });
  }
});
