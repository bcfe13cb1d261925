import { expect } from 'chai';
import { ClaimTypes } from '../../../../src/domain/claims/claim-types.js';
import type { Principal } from '../../../../src/domain/claims/principal.js';
import {
  organizationRefusal,
  withOrganization,
  type OrganizationBinding,
  type OrganizationRefusal,
} from '../../../../src/domain/connections/organization-guard.js';

const acme: OrganizationBinding = { connection: 'Acme', organization: 'acme', domains: ['acme.com', '*.acme.eu'] };

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
    const vouched = withOrganization(principal, acme);
    expect(vouched.scheme).to.equal('Acme');
    expect(vouched.claims).to.deep.equal([
      ...principal.claims,
      { type: ClaimTypes.Organization, value: 'acme', issuer: 'Acme' },
      { type: ClaimTypes.Connection, value: 'Acme', issuer: 'Acme' },
    ]);
  });
});
