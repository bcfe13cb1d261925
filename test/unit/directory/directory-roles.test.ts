import { expect } from 'chai';
import { ClaimTypes } from '../../../src/domain/claims/claim-types.js';
import type { Principal } from '../../../src/domain/claims/principal.js';
import { DIRECTORY_ISSUER, withDirectoryRoles } from '../../../src/domain/directory/directory-roles.js';

const binding = {
  roleMappings: { 'Acme Admins': 'admin', '00g-okta-id': 'auditor' },
  permissionMappings: { 'Acme Admins': 'billing.read' },
};

const signedIn = (...claims: Principal['claims']): Principal => ({
  scheme: 'acme',
  claims: [
    { type: ClaimTypes.Subject, value: 'ada', issuer: 'acme' },
    { type: ClaimTypes.Organization, value: 'acme', issuer: 'acme' },
    ...claims,
  ],
});

const granted = (principal: Principal) =>
  principal.claims.filter((claim) => claim.issuer === DIRECTORY_ISSUER).map(({ type, value }) => ({ type, value }));

describe("withDirectoryRoles: what an organization's directory groups grant", () => {
  it('maps a group by its displayName and by its externalId to organization roles and permissions', () => {
    const principal = withDirectoryRoles(signedIn(), binding, [
      { displayName: 'Acme Admins' },
      { displayName: 'Renamed in Okta', externalId: '00g-okta-id' },
    ]);
    expect(granted(principal)).to.deep.equal([
      { type: ClaimTypes.OrganizationRole, value: 'admin' },
      { type: ClaimTypes.OrganizationRole, value: 'auditor' },
      { type: ClaimTypes.OrganizationPermission, value: 'billing.read' },
    ]);
  });

  it('as the hostile customer: a group named like a deployment role grants nothing the mappings do not name, and never a deployment claim', () => {
    const principal = withDirectoryRoles(signedIn(), binding, [
      { displayName: 'Administrator' },
      { displayName: 'application.manage', externalId: '__proto__' },
      { displayName: 'constructor' },
    ]);
    expect(principal.claims.filter((claim) => claim.type === ClaimTypes.Role)).to.deep.equal([]);
    expect(principal.claims.filter((claim) => claim.type === ClaimTypes.Permission)).to.deep.equal([]);
    expect(granted(principal)).to.deep.equal([]);
  });

  it("replaces what the directory granted before, and keeps what the provider's claims granted at sign-in", () => {
    const before = signedIn(
      { type: ClaimTypes.OrganizationRole, value: 'viewer', issuer: 'acme' },
      { type: ClaimTypes.OrganizationRole, value: 'admin', issuer: DIRECTORY_ISSUER },
    );
    const after = withDirectoryRoles(before, binding, [{ displayName: 'Someone else', externalId: '00g-okta-id' }]);
    const roles = after.claims.filter((claim) => claim.type === ClaimTypes.OrganizationRole);
    expect(roles).to.deep.equal([
      { type: ClaimTypes.OrganizationRole, value: 'viewer', issuer: 'acme' },
      { type: ClaimTypes.OrganizationRole, value: 'auditor', issuer: DIRECTORY_ISSUER },
    ]);
  });

  it('adds no copy of a role the provider granted already, and answers the same principal when nothing changes', () => {
    const fromProvider = signedIn({ type: ClaimTypes.OrganizationRole, value: 'admin', issuer: 'acme' });
    const withGroups = withDirectoryRoles(
      fromProvider,
      { roleMappings: binding.roleMappings, permissionMappings: {} },
      [{ displayName: 'Acme Admins' }],
    );
    expect(withGroups).to.equal(fromProvider);
    const once = withDirectoryRoles(signedIn(), binding, [{ displayName: 'Acme Admins' }]);
    expect(withDirectoryRoles(once, binding, [{ displayName: 'Acme Admins' }])).to.equal(once);
  });
});
