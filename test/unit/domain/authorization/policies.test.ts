import { expect } from 'chai';
import { evaluatePolicy } from '../../../../src/domain/authorization/evaluate-policy.js';
import {
  builtInPolicies,
  definePolicy,
  PolicyRegistry,
  requireClaim,
  requirePermission,
  requireRole,
  type Requirement,
} from '../../../../src/domain/authorization/policies.js';
import { PolicyNames } from '../../../../src/domain/authorization/policy-names.js';
import type { AuthorizationSettings } from '../../../../src/domain/settings/settings.js';
import { codeOf, starterAuthorization, userWith } from './principals.js';

describe('PolicyNames', () => {
  it('spells the documented policy names (docs: Named policies)', () => {
    expect(PolicyNames).to.deep.equal({
      AuthenticatedUser: 'application.AuthenticatedUser',
      AdministratorRole: 'application.Role.Administrator',
      ManageApplicationPermission: 'application.Permission.ManageApplication',
      ManageConnections: 'application.Permission.ManageConnections',
    });
  });
});

describe('requirement helpers', () => {
  const cases: ReadonlyArray<[label: string, make: () => Requirement, expected: Requirement]> = [
    [
      'requireClaim without values',
      () => requireClaim('dept'),
      { kind: 'claim', claimType: 'dept', allowedValues: [] },
    ],
    [
      'requireRole',
      () => requireRole('roles', ['A', 'B']),
      { kind: 'claim', claimType: 'roles', allowedValues: ['A', 'B'], deploymentOnly: true },
    ],
    [
      'requirePermission',
      () => requirePermission('perms', ['p']),
      { kind: 'claim', claimType: 'perms', allowedValues: ['p'], deploymentOnly: true },
    ],
  ];
  for (const [label, make, expected] of cases) {
    it(`${label} builds a claim requirement`, () => {
      expect(make()).to.deep.equal(expected);
    });
  }

  for (const [label, make] of [
    ['requireRole', () => requireRole('roles', [])],
    ['requirePermission', () => requirePermission('perms', [])],
  ] as const) {
    it(`${label} refuses an empty list (it would mean "any value")`, () => {
      expect(codeOf(make)).to.equal('config.invalid_policy');
    });
  }

  it('copies the allowed values, so later changes to the caller array do not widen the policy', () => {
    const roles = ['Administrator'];
    const requirement = requireRole('application:role', roles);
    roles.push('Guest');
    expect(requirement).to.deep.equal({
      kind: 'claim',
      claimType: 'application:role',
      allowedValues: ['Administrator'],
      deploymentOnly: true,
    });
  });
});

describe('definePolicy', () => {
  it('puts the authenticated-user baseline first', () => {
    expect(definePolicy('app.Reports', requireClaim('dept')).requirements).to.deep.equal([
      { kind: 'authenticated' },
      requireClaim('dept'),
    ]);
  });
  it('does not repeat the baseline when given it', () => {
    expect(definePolicy('app.Any', { kind: 'authenticated' }).requirements).to.deep.equal([{ kind: 'authenticated' }]);
  });
});

describe('PolicyRegistry', () => {
  it('returns what was added, and undefined for other names', () => {
    const policy = definePolicy('app.One');
    const registry = new PolicyRegistry().add(policy);
    expect(registry.get('app.One')).to.equal(policy);
    expect(registry.get('app.Two')).to.equal(undefined);
    expect(registry.list()).to.deep.equal([policy]);
  });
  it('refuses a duplicate name with config.duplicate_policy', () => {
    const registry = new PolicyRegistry().add(definePolicy('app.One'));
    expect(codeOf(() => registry.add(definePolicy('app.One', requireClaim('x'))))).to.equal('config.duplicate_policy');
  });
  it('refuses an empty name with config.invalid_policy', () => {
    expect(codeOf(() => new PolicyRegistry().add(definePolicy(' ')))).to.equal('config.invalid_policy');
  });
  it('refuses to register a built-in name again', () => {
    const registry = builtInPolicies(starterAuthorization);
    expect(codeOf(() => registry.add(definePolicy(PolicyNames.AdministratorRole)))).to.equal('config.duplicate_policy');
  });
});

describe('builtInPolicies', () => {
  it("registers the three contract policies and the administration API's, each starting from the authenticated baseline", () => {
    const policies = builtInPolicies(starterAuthorization).list();
    expect(policies.map((policy) => policy.name)).to.deep.equal([
      PolicyNames.AuthenticatedUser,
      PolicyNames.AdministratorRole,
      PolicyNames.ManageApplicationPermission,
      PolicyNames.ManageConnections,
    ]);
    for (const policy of policies) expect(policy.requirements[0]).to.deep.equal({ kind: 'authenticated' });
  });

  it('gives ManageConnections the permission Administration:ManagePermission names, for the deployment only', () => {
    const policy = builtInPolicies(starterAuthorization, 'catalog.write').get(PolicyNames.ManageConnections);
    expect(policy?.requirements.at(-1)).to.deep.equal(
      requirePermission(starterAuthorization.PermissionClaimType, ['catalog.write']),
    );
    expect(policy?.requirements.at(-1)).to.include({ deploymentOnly: true });
  });

  it('reads RoleClaimType/AdministratorRoles and PermissionClaimType/ManageApplicationPermissions', () => {
    const registry = builtInPolicies({
      ...starterAuthorization,
      RoleClaimType: 'roles',
      AdministratorRoles: ['Admin', 'Owner'],
      PermissionClaimType: 'scp',
      ManageApplicationPermissions: ['app.admin'],
    });
    expect(registry.get(PolicyNames.AdministratorRole)?.requirements[1]).to.deep.equal(
      requireRole('roles', ['Admin', 'Owner']),
    );
    expect(registry.get(PolicyNames.ManageApplicationPermission)?.requirements[1]).to.deep.equal(
      requirePermission('scp', ['app.admin']),
    );
  });

  // Fail closed: an empty list must not turn into "any role" or "any permission".
  const emptyCases: ReadonlyArray<
    [key: string, name: string, override: Partial<AuthorizationSettings>, claim: [type: string, value: string]]
  > = [
    [
      'AdministratorRoles',
      PolicyNames.AdministratorRole,
      { AdministratorRoles: [] },
      ['application:role', 'Administrator'],
    ],
    [
      'ManageApplicationPermissions',
      PolicyNames.ManageApplicationPermission,
      { ManageApplicationPermissions: [] },
      ['application:permission', 'application.manage'],
    ],
  ];
  for (const [key, name, override, [type, value]] of emptyCases) {
    it(`makes ${name} unsatisfiable when ${key} is empty`, () => {
      const policy = builtInPolicies({ ...starterAuthorization, ...override }).get(name);
      expect(policy).to.not.equal(undefined);
      if (policy === undefined) return;
      const decision = evaluatePolicy(policy, userWith([type, value], [type, 'anything']));
      expect(decision).to.deep.equal({
        allowed: false,
        authenticated: true,
        failed: [`ProjectTemplate:Authorization:${key} is empty, so nobody qualifies`],
      });
    });
  }
});
