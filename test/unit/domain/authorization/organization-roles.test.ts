import { expect } from 'chai';
import { describeRequirement, evaluatePolicy } from '../../../../src/domain/authorization/evaluate-policy.js';
import {
  builtInPolicies,
  definePolicy,
  requireClaim,
  requireOrganizationPermission,
  requireOrganizationRole,
  requirePermission,
  requireRole,
} from '../../../../src/domain/authorization/policies.js';
import { PolicyNames } from '../../../../src/domain/authorization/policy-names.js';
import type { Principal } from '../../../../src/domain/claims/principal.js';
import { codeOf, starterAuthorization, userWith } from './principals.js';

const policies = builtInPolicies(starterAuthorization);
const administrator = policies.get(PolicyNames.AdministratorRole)!;
const manager = policies.get(PolicyNames.ManageApplicationPermission)!;

/** The deployment's own administrator (its own provider: no connection). */
const staff = userWith(
  ['application:subject', 's1'],
  ['application:role', 'Administrator'],
  ['application:permission', 'application.manage'],
);
/**
 * What a session signed in through a customer's connection carries if the deployment's
 * claims ever reached it (a session stored before the sign-in dropped them, or an
 * application's own claims code): the organization and connection Gatehouse set, and the
 * deployment's role and permission.
 */
const customerClaimingAdmin = userWith(
  ['application:subject', 'c1'],
  ['application:organization', 'acme'],
  ['application:connection', 'Acme'],
  ['application:role', 'Administrator'],
  ['application:permission', 'application.manage'],
);
/** The same through a connection the configuration let grant the deployment's roles. */
const trustedConnection = userWith(
  ['application:subject', 'c2'],
  ['application:organization', 'staff'],
  ['application:connection', 'Staff'],
  ['application:grants_deployment_roles', 'true'],
  ['application:role', 'Administrator'],
  ['application:permission', 'application.manage'],
);
const acmeAdmin = userWith(
  ['application:subject', 'c3'],
  ['application:organization', 'acme'],
  ['application:connection', 'Acme'],
  ['application:organization_role', 'admin'],
  ['application:organization_permission', 'settings.write'],
);
const acmeMember = userWith(
  ['application:subject', 'c4'],
  ['application:organization', 'acme'],
  ['application:connection', 'Acme'],
);
/** A principal that somehow holds two organizations: its roles cannot be told apart, so none counts. */
const twoOrganizations = userWith(
  ['application:subject', 'c5'],
  ['application:organization', 'acme'],
  ['application:organization', 'globex'],
  ['application:organization_role', 'admin'],
);

describe("the deployment's roles and permissions: only the deployment's own sign-ins meet them", () => {
  const cases: ReadonlyArray<[label: string, principal: Principal, allowed: boolean]> = [
    ["the deployment's own administrator", staff, true],
    ["a customer connection's sign-in holding Administrator", customerClaimingAdmin, false],
    ['a connection the configuration let grant deployment roles', trustedConnection, true],
    ["a customer's organization administrator", acmeAdmin, false],
  ];
  for (const [label, principal, allowed] of cases) {
    it(`${allowed ? 'admits' : 'refuses'} ${label} (${PolicyNames.AdministratorRole})`, () => {
      expect(evaluatePolicy(administrator, principal).allowed).to.equal(allowed);
    });
    it(`${allowed ? 'admits' : 'refuses'} ${label} (${PolicyNames.ManageApplicationPermission})`, () => {
      expect(evaluatePolicy(manager, principal).allowed).to.equal(allowed);
    });
  }

  it("holds for an application's own policy built on requireRole or requirePermission", () => {
    const auditor = definePolicy('application.Role.Auditor', requireRole('application:role', ['Administrator']));
    const releaser = definePolicy('p', requirePermission('application:permission', ['application.manage']));
    expect(evaluatePolicy(auditor, customerClaimingAdmin).allowed).to.equal(false);
    expect(evaluatePolicy(releaser, customerClaimingAdmin).allowed).to.equal(false);
    expect(evaluatePolicy(auditor, staff).allowed).to.equal(true);
  });

  it('says why in the refusal: the claim must come from the deployment', () => {
    const decision = evaluatePolicy(administrator, customerClaimingAdmin);
    expect(decision.allowed).to.equal(false);
    if (!decision.allowed) expect(decision.failed.join(' ')).to.contain("from the deployment's own sign-in");
  });

  it('leaves a plain claim requirement as it was (the sign-in is what keeps deployment claims away from connections)', () => {
    const beta = definePolicy('p', requireClaim('application:role', ['Administrator']));
    expect(evaluatePolicy(beta, customerClaimingAdmin).allowed).to.equal(true);
  });
});

describe('requireOrganizationRole and requireOrganizationPermission', () => {
  const byRoute = definePolicy('p', requireOrganizationRole('admin', { routeParameter: 'organization' }));
  const fixed = definePolicy('p', requireOrganizationRole(['admin', 'owner'], 'acme'));
  const permission = definePolicy('p', requireOrganizationPermission('settings.write', { organization: 'acme' }));
  const at = (organization: string) => ({ routeParameters: { organization } });

  const cases: ReadonlyArray<[label: string, principal: Principal, route: string, allowed: boolean]> = [
    ['its organization administrator at its own route', acmeAdmin, 'acme', true],
    ["its organization administrator at another organization's route", acmeAdmin, 'globex', false],
    ['a member without the role', acmeMember, 'acme', false],
    ["the deployment's own administrator (no organization)", staff, 'acme', false],
    ['a principal of two organizations', twoOrganizations, 'acme', false],
  ];
  for (const [label, principal, route, allowed] of cases) {
    it(`${allowed ? 'admits' : 'refuses'} ${label}`, () => {
      expect(evaluatePolicy(byRoute, principal, at(route)).allowed).to.equal(allowed);
    });
  }

  it('refuses a route that names no organization (closed)', () => {
    expect(evaluatePolicy(byRoute, acmeAdmin, { routeParameters: {} }).allowed).to.equal(false);
    expect(evaluatePolicy(byRoute, acmeAdmin, at('')).allowed).to.equal(false);
  });

  it('reads a fixed organization and any of several roles', () => {
    expect(evaluatePolicy(fixed, acmeAdmin).allowed).to.equal(true);
    expect(evaluatePolicy(fixed, acmeMember).allowed).to.equal(false);
  });

  it('reads organization permissions apart from organization roles', () => {
    expect(evaluatePolicy(permission, acmeAdmin).allowed).to.equal(true);
    const roleOnly = userWith(
      ['application:organization', 'acme'],
      ['application:organization_role', 'settings.write'],
    );
    expect(evaluatePolicy(permission, roleOnly).allowed).to.equal(false);
  });

  it('is refused without a role, or with an empty one', () => {
    expect(codeOf(() => requireOrganizationRole([], 'acme'))).to.equal('config.invalid_policy');
    expect(codeOf(() => requireOrganizationRole(' ', 'acme'))).to.equal('config.invalid_policy');
    expect(codeOf(() => requireOrganizationRole('admin', ''))).to.equal('config.invalid_policy');
  });

  it('is described with its organization and role', () => {
    const requirement = requireOrganizationRole('admin', { routeParameter: 'organization' });
    expect(describeRequirement(requirement)).to.equal(
      'member of the organization the route names (:organization) with application:organization_role in [admin]',
    );
  });
});
