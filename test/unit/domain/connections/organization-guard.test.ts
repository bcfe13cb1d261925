import { expect } from 'chai';
import { ClaimTypes } from '../../../../src/domain/claims/claim-types.js';
import type { Principal } from '../../../../src/domain/claims/principal.js';
import {
  organizationRefusal,
  withOrganization,
  type OrganizationBinding,
  type OrganizationRefusal,
} from '../../../../src/domain/connections/organization-guard.js';

const acme: OrganizationBinding = {
  connection: 'Acme',
  organization: 'acme',
  domains: ['acme.com', '*.acme.eu'],
  pendingDomains: [],
  roleMappings: {},
  permissionMappings: {},
  grantsDeploymentRoles: false,
};
/** The deployment's role and permission claim types as the default settings have them. */
const deploymentClaims: ReadonlySet<string> = new Set([ClaimTypes.Role, ClaimTypes.Permission]);

/** A normalized principal of the connection `Acme` with these addresses (`application:email`). */
function signedInWith(...addresses: string[]): Principal {
  return {
    scheme: 'Acme',
    claims: [
      { type: ClaimTypes.Subject, value: 'u1', issuer: 'Acme' },
      ...addresses.map((value) => ({ type: ClaimTypes.Email, value, issuer: 'Acme' })),
    ],
  };
}

describe('the organization guard: a connection signs in only its own domains', () => {
  const cases: ReadonlyArray<
    [label: string, addresses: string[], raw: Record<string, unknown>, refusal: OrganizationRefusal | undefined]
  > = [
    ['an address of its domain', ['ada@acme.com'], {}, undefined],
    ['in another letter case', ['Ada@ACME.COM'], {}, undefined],
    ['with a trailing dot', ['ada@acme.com.'], {}, undefined],
    ['under its wildcard', ['ada@paris.acme.eu'], {}, undefined],
    ['verified', ['ada@acme.com'], { email_verified: true }, undefined],
    ['verified, said as text', ['ada@acme.com'], { email_verified: 'true' }, undefined],
    ['two addresses, both its own', ['ada@acme.com', 'ada@fr.acme.eu'], {}, undefined],
    ['no address at all', [], {}, 'idp.email_missing'],
    ['no address, however verified', [], { email_verified: true }, 'idp.email_missing'],
    ['an address said unverified', ['ada@acme.com'], { email_verified: false }, 'idp.email_unverified'],
    ['an address said unverified, as text', ['ada@acme.com'], { email_verified: 'false' }, 'idp.email_unverified'],
    [
      'said unverified by a SAML attribute (values are lists)',
      ['ada@acme.com'],
      { email_verified: ['false'] },
      'idp.email_unverified',
    ],
    ['said unverified in capitals', ['ada@acme.com'], { email_verified: 'FALSE' }, 'idp.email_unverified'],
    ['said verified by a SAML attribute', ['ada@acme.com'], { email_verified: ['true'] }, undefined],
    ['an address of another organization', ['ceo@globex.com'], {}, 'idp.domain_not_allowed'],
    ['another organization under a name like its own', ['ceo@notacme.com'], {}, 'idp.domain_not_allowed'],
    ['a subdomain of an exact domain', ['ada@eu.acme.com'], {}, 'idp.domain_not_allowed'],
    ['the base of its wildcard (never covered)', ['ada@acme.eu'], {}, 'idp.domain_not_allowed'],
    ['one of two addresses outside', ['ada@acme.com', 'ceo@globex.com'], {}, 'idp.domain_not_allowed'],
    ['one of two addresses outside, listed first', ['ceo@globex.com', 'ada@acme.com'], {}, 'idp.domain_not_allowed'],
    ['an address that is not one', ['acme.com'], {}, 'idp.domain_not_allowed'],
    ['an address with two @', ['ceo@globex.com@acme.com'], {}, 'idp.domain_not_allowed'],
  ];
  for (const [label, addresses, raw, refusal] of cases) {
    it(`${refusal === undefined ? 'accepts' : `refuses (${refusal})`} ${label}`, () => {
      expect(organizationRefusal(acme, signedInWith(...addresses), raw)).to.equal(refusal);
    });
  }

  it('sets the organization and the connection from the binding, keeping every other claim', () => {
    const principal = signedInWith('ada@acme.com');
    const vouched = withOrganization(principal, acme, deploymentClaims);
    expect(vouched.scheme).to.equal('Acme');
    expect(vouched.claims).to.deep.equal([
      ...principal.claims,
      { type: ClaimTypes.Organization, value: 'acme', issuer: 'Acme' },
      { type: ClaimTypes.Connection, value: 'Acme', issuer: 'Acme' },
    ]);
  });
});

describe("the organization guard: a connection's provider speaks for its own organization only", () => {
  const claim = (type: string, value: string) => ({ type, value, issuer: 'Acme' });
  /** What a hostile customer's provider sends: the deployment's roles and permissions, and its own groups. */
  const hostile: Principal = {
    scheme: 'Acme',
    claims: [
      claim(ClaimTypes.Subject, 'u1'),
      claim(ClaimTypes.Email, 'ada@acme.com'),
      claim(ClaimTypes.Role, 'Administrator'),
      claim(ClaimTypes.Permission, 'application.manage'),
      claim(ClaimTypes.Group, 'acme-admins'),
      claim('roles', 'Administrator'),
    ],
  };
  const typesOf = (principal: Principal) => principal.claims.map((c) => c.type);
  const valuesOf = (principal: Principal, type: string) =>
    principal.claims.filter((c) => c.type === type).map((c) => c.value);

  it("drops the deployment's role and permission claims a customer's provider sends", () => {
    const vouched = withOrganization(hostile, acme, deploymentClaims);
    expect(typesOf(vouched)).to.not.include(ClaimTypes.Role);
    expect(typesOf(vouched)).to.not.include(ClaimTypes.Permission);
    // Groups and the provider's own claims stay: they grant nothing by themselves.
    expect(valuesOf(vouched, ClaimTypes.Group)).to.deep.equal(['acme-admins']);
  });

  it('drops a configured RoleClaimType too, whatever its name (here the raw `roles`)', () => {
    const vouched = withOrganization(hostile, acme, new Set([...deploymentClaims, 'roles']));
    expect(typesOf(vouched)).to.not.include('roles');
  });

  it('grants no organization role by default: a role is only what RoleMappings says (fail closed)', () => {
    const vouched = withOrganization(hostile, acme, deploymentClaims);
    expect(valuesOf(vouched, ClaimTypes.OrganizationRole)).to.deep.equal([]);
    expect(valuesOf(vouched, ClaimTypes.OrganizationPermission)).to.deep.equal([]);
    expect(valuesOf(vouched, ClaimTypes.GrantsDeploymentRoles)).to.deep.equal([]);
  });

  it("maps the provider's role, group and permission values through RoleMappings and PermissionMappings, once each", () => {
    const binding: OrganizationBinding = {
      ...acme,
      roleMappings: { 'acme-admins': 'admin', Administrator: 'admin', 'acme-billing': 'billing' },
      permissionMappings: { 'application.manage': 'settings.write' },
    };
    const vouched = withOrganization(hostile, binding, deploymentClaims);
    expect(valuesOf(vouched, ClaimTypes.OrganizationRole)).to.deep.equal(['admin']);
    expect(valuesOf(vouched, ClaimTypes.OrganizationPermission)).to.deep.equal(['settings.write']);
    expect(typesOf(vouched)).to.not.include(ClaimTypes.Role);
  });

  it('maps nothing from a value that names a property every object has (`constructor`, `__proto__`)', () => {
    const principal: Principal = {
      scheme: 'Acme',
      claims: [
        claim(ClaimTypes.Group, 'constructor'),
        claim(ClaimTypes.Group, '__proto__'),
        claim(ClaimTypes.Group, 'toString'),
      ],
    };
    const vouched = withOrganization(
      principal,
      { ...acme, roleMappings: { 'acme-admins': 'admin' } },
      deploymentClaims,
    );
    expect(valuesOf(vouched, ClaimTypes.OrganizationRole)).to.deep.equal([]);
  });

  it('replaces, never keeps beside, an organization, connection or organization role the principal already carries', () => {
    const carried: Principal = {
      scheme: 'Acme',
      claims: [
        claim(ClaimTypes.Email, 'ada@acme.com'),
        claim(ClaimTypes.Organization, 'globex'),
        claim(ClaimTypes.Connection, 'Globex'),
        claim(ClaimTypes.OrganizationRole, 'owner'),
        claim(ClaimTypes.OrganizationPermission, 'everything'),
        claim(ClaimTypes.GrantsDeploymentRoles, 'true'),
      ],
    };
    const vouched = withOrganization(carried, acme, deploymentClaims);
    expect(valuesOf(vouched, ClaimTypes.Organization)).to.deep.equal(['acme']);
    expect(valuesOf(vouched, ClaimTypes.Connection)).to.deep.equal(['Acme']);
    expect(valuesOf(vouched, ClaimTypes.OrganizationRole)).to.deep.equal([]);
    expect(valuesOf(vouched, ClaimTypes.OrganizationPermission)).to.deep.equal([]);
    expect(valuesOf(vouched, ClaimTypes.GrantsDeploymentRoles)).to.deep.equal([]);
  });

  it('keeps the deployment claims, and says so, only for a connection the configuration let grant them', () => {
    const vouched = withOrganization(hostile, { ...acme, grantsDeploymentRoles: true }, deploymentClaims);
    expect(valuesOf(vouched, ClaimTypes.Role)).to.deep.equal(['Administrator']);
    expect(valuesOf(vouched, ClaimTypes.Permission)).to.deep.equal(['application.manage']);
    expect(valuesOf(vouched, ClaimTypes.GrantsDeploymentRoles)).to.deep.equal(['true']);
    expect(valuesOf(vouched, ClaimTypes.Organization)).to.deep.equal(['acme']);
  });
});
