import { expect } from 'chai';
import {
  describeRequirement,
  evaluatePolicy,
  type AuthorizationDecision,
} from '../../../../src/domain/authorization/evaluate-policy.js';
import { definePolicy, requireClaim, requireRole, type Policy } from '../../../../src/domain/authorization/policies.js';
import type { Principal } from '../../../../src/domain/claims/principal.js';
import { userWith } from './principals.js';

const admin = definePolicy('app.Admin', requireRole('application:role', ['Administrator', 'Owner']));
const inDepartment = definePolicy('app.Dept', requireClaim('dept'));
const subjectStartsWithU = definePolicy('app.Custom', {
  kind: 'custom',
  description: 'subject starts with u',
  test: (principal) =>
    principal.claims.some((claim) => claim.type === 'application:subject' && claim.value.startsWith('u')),
});
const twoRules = definePolicy(
  'app.Two',
  requireRole('application:role', ['Administrator']),
  requireClaim('dept', ['R&D']),
);

describe('evaluatePolicy', () => {
  const cases: ReadonlyArray<
    [label: string, policy: Policy, principal: Principal | undefined, expected: AuthorizationDecision]
  > = [
    [
      'anonymous fails the baseline only',
      admin,
      undefined,
      { allowed: false, authenticated: false, failed: ['authenticated user'] },
    ],
    [
      'anonymous fails even a claim-free policy',
      definePolicy('app.Any'),
      undefined,
      { allowed: false, authenticated: false, failed: ['authenticated user'] },
    ],
    ['any signed-in user passes the baseline', definePolicy('app.Any'), userWith(), { allowed: true }],
    ['first allowed role', admin, userWith(['application:role', 'Administrator']), { allowed: true }],
    [
      'second allowed role',
      admin,
      userWith(['application:role', 'Reader'], ['application:role', 'Owner']),
      { allowed: true },
    ],
    [
      'other role',
      admin,
      userWith(['application:role', 'Reader']),
      {
        allowed: false,
        authenticated: true,
        failed: ["claim application:role in [Administrator, Owner] from the deployment's own sign-in"],
      },
    ],
    [
      'role value compares exactly',
      admin,
      userWith(['application:role', 'administrator']),
      {
        allowed: false,
        authenticated: true,
        failed: ["claim application:role in [Administrator, Owner] from the deployment's own sign-in"],
      },
    ],
    [
      'right value under another claim type',
      admin,
      userWith(['role', 'Administrator']),
      {
        allowed: false,
        authenticated: true,
        failed: ["claim application:role in [Administrator, Owner] from the deployment's own sign-in"],
      },
    ],
    ['claim present with any value', inDepartment, userWith(['dept', 'Sales']), { allowed: true }],
    [
      'claim absent',
      inDepartment,
      userWith(['application:role', 'Administrator']),
      { allowed: false, authenticated: true, failed: ['claim dept present'] },
    ],
    ['custom requirement holds', subjectStartsWithU, userWith(['application:subject', 'u1']), { allowed: true }],
    [
      'custom requirement fails',
      subjectStartsWithU,
      userWith(['application:subject', 'x1']),
      { allowed: false, authenticated: true, failed: ['subject starts with u'] },
    ],
    [
      'every failing requirement is listed',
      twoRules,
      userWith(),
      {
        allowed: false,
        authenticated: true,
        failed: ["claim application:role in [Administrator] from the deployment's own sign-in", 'claim dept in [R&D]'],
      },
    ],
    [
      'all requirements must hold',
      twoRules,
      userWith(['application:role', 'Administrator']),
      { allowed: false, authenticated: true, failed: ['claim dept in [R&D]'] },
    ],
    ['both hold', twoRules, userWith(['application:role', 'Administrator'], ['dept', 'R&D']), { allowed: true }],
  ];
  for (const [label, policy, principal, expected] of cases) {
    it(label, () => {
      expect(evaluatePolicy(policy, principal)).to.deep.equal(expected);
    });
  }

  it('does not call a custom test for an anonymous caller', () => {
    let calls = 0;
    const policy = definePolicy('app.Counted', { kind: 'custom', description: 'counted', test: () => ++calls > 0 });
    evaluatePolicy(policy, undefined);
    expect(calls).to.equal(0);
  });
});

describe('describeRequirement', () => {
  it('names the authenticated baseline', () => {
    expect(describeRequirement({ kind: 'authenticated' })).to.equal('authenticated user');
  });
});
