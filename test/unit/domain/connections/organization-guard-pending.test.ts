import { expect } from 'chai';
import { ClaimTypes } from '../../../../src/domain/claims/claim-types.js';
import type { Principal } from '../../../../src/domain/claims/principal.js';
import {
  organizationRefusal,
  vouchedFor,
  type OrganizationBinding,
  type OrganizationRefusal,
} from '../../../../src/domain/connections/organization-guard.js';
import { GatehouseError } from '../../../../src/domain/errors.js';

/** Acme proved acme.com through DNS; acme.io and its wildcard over acme.eu wait for their records. */
const acme: OrganizationBinding = {
  connection: 'Acme',
  organization: 'acme',
  domains: ['acme.com'],
  pendingDomains: ['acme.io', '*.acme.eu'],
  roleMappings: {},
  permissionMappings: {},
  grantsDeploymentRoles: false,
};
/** The same connection before any of its domains is proved. */
const nothingProved: OrganizationBinding = { ...acme, domains: [], pendingDomains: ['acme.com', 'acme.io'] };
/** The same connection without pending domains: what an operator's connection is. */
const nonePending: OrganizationBinding = { ...acme, pendingDomains: [] };
const deploymentClaims: ReadonlySet<string> = new Set([ClaimTypes.Role, ClaimTypes.Permission]);

function signedInWith(...addresses: string[]): Principal {
  return {
    scheme: 'Acme',
    claims: [
      { type: ClaimTypes.Subject, value: 'u1', issuer: 'Acme' },
      ...addresses.map((value) => ({ type: ClaimTypes.Email, value, issuer: 'Acme' })),
    ],
  };
}

describe('the organization guard: domains waiting for their DNS proof', () => {
  const cases: ReadonlyArray<
    [label: string, binding: OrganizationBinding, addresses: string[], refusal: OrganizationRefusal | undefined]
  > = [
    ['an address of a proved domain', acme, ['ada@acme.com'], undefined],
    ['an address of a pending domain', acme, ['ada@acme.io'], 'idp.domain_not_verified'],
    ['a pending domain in another letter case', acme, ['Ada@ACME.IO'], 'idp.domain_not_verified'],
    ['an address in no domain of the connection', acme, ['ceo@globex.com'], 'idp.domain_not_allowed'],
    ['a subdomain of a pending exact domain', acme, ['ada@eu.acme.io'], 'idp.domain_not_allowed'],
    ['one address proved, one pending', acme, ['ada@acme.com', 'ada@acme.io'], 'idp.domain_not_verified'],
    ['one address pending, one in no domain', acme, ['ada@acme.io', 'ceo@globex.com'], 'idp.domain_not_allowed'],
    ['one address in no domain, one pending', acme, ['ceo@globex.com', 'ada@acme.io'], 'idp.domain_not_allowed'],
    ['one address proved, one in no domain', acme, ['ada@acme.com', 'ceo@globex.com'], 'idp.domain_not_allowed'],
    ['an address under a pending wildcard', acme, ['ada@paris.acme.eu'], 'idp.domain_not_verified'],
    ['the base of a pending wildcard (never covered by it)', acme, ['ada@acme.eu'], 'idp.domain_not_allowed'],
    ['a connection with no domain proved yet', nothingProved, ['ada@acme.com'], 'idp.domain_not_verified'],
    ['no domain proved, an address outside', nothingProved, ['ceo@globex.com'], 'idp.domain_not_allowed'],
    ['the same address with nothing pending', nonePending, ['ada@acme.io'], 'idp.domain_not_allowed'],
  ];
  for (const [label, binding, addresses, refusal] of cases) {
    it(`${refusal === undefined ? 'accepts' : `refuses (${refusal})`} ${label}`, () => {
      expect(organizationRefusal(binding, signedInWith(...addresses), {})).to.equal(refusal);
    });
  }

  it('refuses an unverified or missing address first, whatever the domain', () => {
    expect(organizationRefusal(acme, signedInWith('ada@acme.io'), { email_verified: false })).to.equal(
      'idp.email_unverified',
    );
    expect(organizationRefusal(acme, signedInWith(), {})).to.equal('idp.email_missing');
  });

  it('throws a refusal safe to show, telling the person the domain is not proved yet', () => {
    let thrown: unknown;
    try {
      vouchedFor(acme, signedInWith('ada@acme.io'), {}, deploymentClaims);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(GatehouseError);
    const refusal = thrown as GatehouseError;
    expect(refusal.code).to.equal('idp.domain_not_verified');
    expect(refusal.safe).to.equal(true);
    expect(refusal.message).to.match(/not yet proved/);
  });
});
