import { expect } from 'chai';
import { reachablePolicies, satisfiedPolicies } from '../../../../src/domain/authorization/list-satisfied-policies.js';
import {
  PolicyRegistry,
  builtInPolicies,
  definePolicy,
  requireClaim,
  requireRecentAuthentication,
  requireRole,
} from '../../../../src/domain/authorization/policies.js';
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

describe('reachablePolicies', () => {
  it('adds the policies a step-up would satisfy, not those failing for more than the sign-in', () => {
    const registry = new PolicyRegistry()
      .add(definePolicy('recent', requireRecentAuthentication(60)))
      .add(
        definePolicy(
          'admin-recent',
          requireRole('application:role', ['Administrator']),
          requireRecentAuthentication(60),
        ),
      );
    const now = 1_800_000_000_000;
    const oldSignIn = userWith(['application:subject', 'u'], ['application:auth_time', String(now / 1000 - 3600)]);
    expect(satisfiedPolicies(registry, oldSignIn, now)).to.deep.equal([]);
    expect(reachablePolicies(registry, oldSignIn, now)).to.deep.equal(['recent']);
    expect(reachablePolicies(registry, undefined, now)).to.deep.equal([]);
  });
});
