import { expect } from 'chai';
import { satisfiedPolicies } from '../../../../src/domain/authorization/list-satisfied-policies.js';
import { builtInPolicies, definePolicy, requireClaim } from '../../../../src/domain/authorization/policies.js';
import { PolicyNames } from '../../../../src/domain/authorization/policy-names.js';
import type { Principal } from '../../../../src/domain/claims/principal.js';
import { starterAuthorization, userWith } from './principals.js';

describe('satisfiedPolicies', () => {
  const registry = builtInPolicies(starterAuthorization).add(definePolicy('app.Dept', requireClaim('dept')));
  const cases: ReadonlyArray<[label: string, principal: Principal | undefined, expected: string[]]> = [
    ['anonymous', undefined, []],
    ['plain user', userWith(['application:name', 'Ada']), [PolicyNames.AuthenticatedUser]],
    [
      'administrator',
      userWith(['application:role', 'Administrator']),
      [PolicyNames.AuthenticatedUser, PolicyNames.AdministratorRole],
    ],
    [
      'everything',
      userWith(
        ['application:role', 'Administrator'],
        ['application:permission', 'application.manage'],
        ['dept', 'R&D'],
      ),
      [
        PolicyNames.AuthenticatedUser,
        PolicyNames.AdministratorRole,
        PolicyNames.ManageApplicationPermission,
        'app.Dept',
      ],
    ],
  ];
  for (const [label, principal, expected] of cases) {
    it(`lists ${JSON.stringify(expected)} for ${label}`, () => {
      expect(satisfiedPolicies(registry, principal)).to.deep.equal(expected);
    });
  }
});
