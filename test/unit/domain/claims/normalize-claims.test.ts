import { expect } from 'chai';
import { SamlAttributeOids, SamlClaimUris } from '../../../../src/domain/claims/claim-mappings.js';
import { ClaimTypes } from '../../../../src/domain/claims/claim-types.js';
import {
  narrowClaimValues,
  normalizeClaims,
  PROTOCOL_CLAIMS,
  type NormalizeClaimsInput,
} from '../../../../src/domain/claims/normalize-claims.js';
import { builtInProviders } from '../../../../src/bootstrap/provider-catalogue.js';
import type { Claim, Principal } from '../../../../src/domain/claims/principal.js';
import type { ProviderKey } from '../../../../src/domain/settings/settings.js';

const { Subject, Name, Email, Role, Group, Permission } = ClaimTypes;

/** normalizeClaims with the built-in table of a provider this build ships. */
function normalizeAs(input: Omit<NormalizeClaimsInput, 'builtInMappings'> & { provider: ProviderKey }): Principal {
  const { provider, ...rest } = input;
  const record = builtInProviders.find((candidate) => candidate.key === provider);
  if (!record) throw new Error(`no built-in provider ${provider}`);
  return normalizeClaims({ ...rest, builtInMappings: record.claimMappings });
}

/** `type=value` of the application claims, sorted: what policies will see. */
function applicationClaims(principal: Principal): string[] {
  return principal.claims
    .filter((claim) => claim.type.startsWith('application:'))
    .map((claim) => `${claim.type}=${claim.value}`)
    .sort();
}

function sorted(claims: readonly Claim[]): string[] {
  return claims.map((claim) => JSON.stringify([claim.type, claim.value, claim.issuer])).sort();
}

/** A principal's claims as raw provider input again (type -> values), to check idempotence. */
function asRawClaims(principal: Principal): Record<string, string[]> {
  const raw: Record<string, string[]> = {};
  for (const claim of principal.claims) (raw[claim.type] ??= []).push(claim.value);
  return raw;
}

interface ProviderCase {
  label: string;
  provider: ProviderKey;
  claims: Record<string, unknown>;
  expected: string[];
}

const providerCases: ProviderCase[] = [
  {
    label: 'OIDC: every standard claim',
    provider: 'OpenIdConnect',
    claims: {
      sub: 'u1',
      name: 'Ada Lovelace',
      preferred_username: 'ada',
      email: 'ada@example.com',
      roles: ['Administrator', 'Reader'],
      groups: ['staff'],
      permissions: ['application.manage', 'reports.read'],
      iss: 'https://idp.example',
      aud: 'client',
      nonce: 'n',
      exp: 2,
      iat: 1,
    },
    expected: [
      `${Email}=ada@example.com`,
      `${Group}=staff`,
      `${Name}=Ada Lovelace`,
      `${Permission}=application.manage`,
      `${Permission}=reports.read`,
      `${Role}=Administrator`,
      `${Role}=Reader`,
      `${Subject}=u1`,
    ],
  },
  {
    label: 'OIDC: preferred_username names the user when name is missing',
    provider: 'OpenIdConnect',
    claims: { sub: 'u1', preferred_username: 'ada' },
    expected: [`${Name}=ada`, `${Subject}=u1`],
  },
  {
    label: 'OIDC: preferred_username when name is empty',
    provider: 'OpenIdConnect',
    claims: { sub: 'u1', name: '', preferred_username: 'ada' },
    expected: [`${Name}=ada`, `${Subject}=u1`],
  },
  {
    label: 'OIDC: role and roles merge without duplicates',
    provider: 'OpenIdConnect',
    claims: { sub: 'u1', role: 'Administrator', roles: ['Administrator', 'Reader'] },
    expected: [`${Role}=Administrator`, `${Role}=Reader`, `${Subject}=u1`],
  },
  {
    label: 'SAML2: claim URIs and the NameID',
    provider: 'Saml2',
    claims: {
      [SamlClaimUris.NameIdentifier]: 'ada@corp',
      [SamlClaimUris.Name]: 'Ada',
      [SamlClaimUris.EmailAddress]: 'ada@corp.example',
      [SamlClaimUris.Role]: ['Administrator'],
      [SamlClaimUris.Group]: ['g-1', 'g-2'],
    },
    expected: [
      `${Email}=ada@corp.example`,
      `${Group}=g-1`,
      `${Group}=g-2`,
      `${Name}=Ada`,
      `${Role}=Administrator`,
      `${Subject}=ada@corp`,
    ],
  },
  {
    label: 'SAML2: urn:oid names (mail, displayName, eduPersonPrincipalName) when no claim URI or NameID says it',
    provider: 'Saml2',
    claims: {
      [SamlAttributeOids.EduPersonPrincipalName]: 'ada@corp.example',
      [SamlAttributeOids.DisplayName]: 'Ada Lovelace',
      [SamlAttributeOids.GivenName]: 'Ada',
      [SamlAttributeOids.Surname]: 'Lovelace',
      [SamlAttributeOids.Mail]: 'ada@mail.example',
      [SamlClaimUris.Groups]: ['g-1', 'g-2', 'g-3'],
    },
    expected: [
      `${Email}=ada@mail.example`,
      `${Group}=g-1`,
      `${Group}=g-2`,
      `${Group}=g-3`,
      `${Name}=Ada Lovelace`,
      `${Subject}=ada@corp.example`,
    ],
  },
  {
    label: 'SAML2: the NameID and claim URIs win over the urn:oid fallbacks',
    provider: 'Saml2',
    claims: {
      [SamlClaimUris.NameIdentifier]: 'persistent-7',
      [SamlAttributeOids.EduPersonPrincipalName]: 'ada@corp.example',
      [SamlClaimUris.EmailAddress]: 'ada@corp.example',
      [SamlAttributeOids.Mail]: 'other@mail.example',
      [SamlAttributeOids.GivenName]: 'Ada',
    },
    expected: [`${Email}=ada@corp.example`, `${Name}=Ada`, `${Subject}=persistent-7`],
  },
  {
    label: 'SAML2: the surname alone names the user when nothing else does',
    provider: 'Saml2',
    claims: { [SamlClaimUris.NameIdentifier]: 'p-1', [SamlAttributeOids.Surname]: 'Lovelace' },
    expected: [`${Name}=Lovelace`, `${Subject}=p-1`],
  },
  {
    label: 'SAML2: an unmapped attribute invents nothing',
    provider: 'Saml2',
    claims: { 'urn:oid:0.9.2342.19200300.100.1.1': 'ada' },
    expected: [],
  },
  {
    label: 'Social1: mail wins over userPrincipalName',
    provider: 'Social1',
    claims: { id: 'a1', displayName: 'Ada', mail: 'ada@example.com', userPrincipalName: 'ada@tenant.example' },
    expected: [`${Email}=ada@example.com`, `${Name}=Ada`, `${Subject}=a1`],
  },
  {
    label: 'Social1: userPrincipalName when mail is null',
    provider: 'Social1',
    claims: { id: 'a1', mail: null, userPrincipalName: 'ada@tenant.example' },
    expected: [`${Email}=ada@tenant.example`, `${Subject}=a1`],
  },
  {
    label: 'Social2: the Login with Amazon customer profile',
    provider: 'Social2',
    claims: { user_id: 'amzn1.account.AF2E', name: 'Ada', email: 'ada@example.com', postal_code: '98052' },
    expected: [`${Email}=ada@example.com`, `${Name}=Ada`, `${Subject}=amzn1.account.AF2E`],
  },
  {
    label: 'Social2: sub is not its subject (Amazon sends none)',
    provider: 'Social2',
    claims: { sub: 'x' },
    expected: [],
  },
  {
    label: 'Social2: a claim it does not know invents nothing',
    provider: 'Social2',
    claims: { locale: 'en' },
    expected: [],
  },
  { label: 'Social1: sub is not its subject', provider: 'Social1', claims: { sub: 'x' }, expected: [] },
  {
    label: 'Social3: numeric id, login when name is null',
    provider: 'Social3',
    claims: { id: 583231, login: 'octocat', name: null, email: null },
    expected: [`${Name}=octocat`, `${Subject}=583231`],
  },
  {
    label: 'Social3: name wins over login',
    provider: 'Social3',
    claims: { id: 1, login: 'octocat', name: 'The Octocat', email: 'octo@example.com' },
    expected: [`${Email}=octo@example.com`, `${Name}=The Octocat`, `${Subject}=1`],
  },
  { label: 'Social3: sub is not its subject', provider: 'Social3', claims: { sub: 'x' }, expected: [] },
];

describe('normalizeClaims', () => {
  describe('per-provider mapping tables', () => {
    for (const { label, provider, claims, expected } of providerCases) {
      it(label, () => {
        const principal = normalizeAs({ provider, scheme: provider, claims, removeOriginalClaims: true });
        expect(applicationClaims(principal)).to.deep.equal(expected);
      });
    }
  });

  describe('original claims', () => {
    const claims = { sub: 'u1', name: 'Ada', locale: 'en' };

    it('keeps them under their own type, issued by the scheme, by default', () => {
      const principal = normalizeAs({
        provider: 'OpenIdConnect',
        scheme: 'corp-oidc',
        claims,
        removeOriginalClaims: false,
      });
      expect(sorted(principal.claims)).to.deep.equal(
        sorted([
          { type: 'sub', value: 'u1', issuer: 'corp-oidc' },
          { type: 'name', value: 'Ada', issuer: 'corp-oidc' },
          { type: 'locale', value: 'en', issuer: 'corp-oidc' },
          { type: Subject, value: 'u1', issuer: 'corp-oidc' },
          { type: Name, value: 'Ada', issuer: 'corp-oidc' },
        ]),
      );
      expect(principal.scheme).to.equal('corp-oidc');
    });

    it('removes them when RemoveOriginalClaims is true', () => {
      const principal = normalizeAs({
        provider: 'OpenIdConnect',
        scheme: 'corp-oidc',
        claims,
        removeOriginalClaims: true,
      });
      expect(sorted(principal.claims)).to.deep.equal(
        sorted([
          { type: Subject, value: 'u1', issuer: 'corp-oidc' },
          { type: Name, value: 'Ada', issuer: 'corp-oidc' },
        ]),
      );
    });
  });

  describe('protocol claims', () => {
    for (const type of PROTOCOL_CLAIMS) {
      it(`drops ${type}, even when kept originals and a configured mapping would keep it`, () => {
        const principal = normalizeAs({
          provider: 'OpenIdConnect',
          scheme: 'OpenIdConnect',
          claims: { sub: 'u1', [type]: 'value' },
          extraMappings: { [type]: 'application:leak' },
          removeOriginalClaims: false,
        });
        expect(principal.claims.map((claim) => claim.type)).to.deep.equal(['sub', Subject]);
      });
    }
  });

  describe('configured mappings', () => {
    const cases: ReadonlyArray<
      [
        label: string,
        provider: ProviderKey,
        claims: Record<string, unknown>,
        extra: Record<string, string>,
        expected: string[],
      ]
    > = [
      [
        'add a source the table lacks',
        'Social2',
        { user_id: 's', hd: 'example.com' },
        { hd: Group },
        [`${Group}=example.com`, `${Subject}=s`],
      ],
      [
        'map onto an application type of their own',
        'Saml2',
        { department: 'R&D' },
        { department: 'application:department' },
        ['application:department=R&D'],
      ],
      [
        'override a built-in row',
        'OpenIdConnect',
        { sub: 's', groups: ['Administrator'] },
        { groups: Role },
        [`${Role}=Administrator`, `${Subject}=s`],
      ],
      [
        'give SAML permissions',
        'Saml2',
        { 'urn:perm': ['application.manage'] },
        { 'urn:perm': Permission },
        [`${Permission}=application.manage`],
      ],
      [
        'make a fallback row primary',
        'Social3',
        { login: 'octocat', name: 'Octo' },
        { login: Name },
        [`${Name}=Octo`, `${Name}=octocat`],
      ],
    ];
    for (const [label, provider, claims, extraMappings, expected] of cases) {
      it(label, () => {
        const principal = normalizeAs({
          provider,
          scheme: provider,
          claims,
          extraMappings,
          removeOriginalClaims: true,
        });
        expect(applicationClaims(principal)).to.deep.equal(expected);
      });
    }
  });

  describe('application claims in the input', () => {
    it('pass through unchanged and are not mapped again', () => {
      const principal = normalizeAs({
        provider: 'OpenIdConnect',
        scheme: 'OpenIdConnect',
        claims: { [Role]: 'Reader', [Name]: 'Ada', preferred_username: 'ada' },
        removeOriginalClaims: true,
      });
      expect(applicationClaims(principal)).to.deep.equal([`${Name}=Ada`, `${Role}=Reader`]);
    });
  });

  describe("the claims only Gatehouse sets (a connection's organization and name)", () => {
    const { Organization, Connection } = ClaimTypes;
    const cases: ReadonlyArray<
      [label: string, provider: ProviderKey, claims: Record<string, unknown>, extra: Record<string, string>]
    > = [
      ['sent as they are', 'OpenIdConnect', { sub: 's', [Organization]: 'globex', [Connection]: 'Globex' }, {}],
      ['sent as SAML attributes', 'Saml2', { [Organization]: ['globex'], [Connection]: ['Globex'] }, {}],
      ['sent among others, as arrays', 'OpenIdConnect', { sub: 's', [Organization]: ['acme', 'globex'] }, {}],
      [
        'mapped to from a claim of the provider',
        'OpenIdConnect',
        { sub: 's', org: 'globex', idp: 'Globex' },
        { org: Organization, idp: Connection },
      ],
      ['mapped to from a SAML attribute', 'Saml2', { 'urn:org': ['globex'] }, { 'urn:org': Organization }],
    ];
    for (const [label, provider, claims, extraMappings] of cases) {
      for (const removeOriginalClaims of [false, true]) {
        it(`are dropped when ${label} (RemoveOriginalClaims ${removeOriginalClaims})`, () => {
          const principal = normalizeAs({ provider, scheme: provider, claims, extraMappings, removeOriginalClaims });
          const types = principal.claims.map((claim) => claim.type);
          expect(types).not.to.include(Organization);
          expect(types).not.to.include(Connection);
        });
      }
    }

    it('leave the source claim a mapping named, as any original claim', () => {
      const principal = normalizeAs({
        provider: 'OpenIdConnect',
        scheme: 'OpenIdConnect',
        claims: { sub: 's', org: 'globex' },
        extraMappings: { org: Organization },
        removeOriginalClaims: false,
      });
      expect(principal.claims.map((claim) => `${claim.type}=${claim.value}`)).to.include('org=globex');
    });
  });

  describe('the claims of what the sign-in proved (auth_time, amr, acr), set by Gatehouse only', () => {
    const { AuthTime, AuthenticationMethods, AuthenticationContextClass } = ClaimTypes;
    const cases: ReadonlyArray<[label: string, claims: Record<string, unknown>, extra: Record<string, string>]> = [
      [
        'sent as they are',
        { sub: 's', [AuthTime]: 4102444800, [AuthenticationMethods]: ['mfa'], [AuthenticationContextClass]: 'gold' },
        {},
      ],
      ['sent as SAML attributes', { [AuthenticationMethods]: ['mfa', 'hwk'], [AuthTime]: ['4102444800'] }, {}],
      [
        'mapped to from a claim of the provider',
        { sub: 's', methods: ['mfa'], loa: 'gold' },
        { methods: AuthenticationMethods, loa: AuthenticationContextClass },
      ],
    ];
    for (const [label, claims, extraMappings] of cases) {
      it(`are dropped when ${label}`, () => {
        const principal = normalizeAs({
          provider: 'OpenIdConnect',
          scheme: 'OpenIdConnect',
          claims,
          extraMappings,
          removeOriginalClaims: false,
        });
        const types = principal.claims.map((claim) => claim.type);
        expect(types)
          .to.not.include.members([AuthTime])
          .and.not.include(AuthenticationMethods)
          .and.not.include(AuthenticationContextClass);
      });
    }
  });

  describe('idempotence', () => {
    const extras: ReadonlyArray<Record<string, string> | undefined> = [
      undefined,
      { locale: 'application:locale', email: Name },
    ];
    for (const { label, provider, claims } of providerCases) {
      for (const removeOriginalClaims of [false, true]) {
        for (const extraMappings of extras) {
          it(`${label} (RemoveOriginalClaims ${removeOriginalClaims}, ${extraMappings ? 'with' : 'without'} configured mappings)`, () => {
            const options = { provider, scheme: `${provider}-scheme`, extraMappings, removeOriginalClaims };
            const once = normalizeAs({ ...options, claims: { ...claims, locale: 'en' } });
            const twice = normalizeAs({ ...options, claims: asRawClaims(once) });
            expect(sorted(twice.claims)).to.deep.equal(sorted(once.claims));
            expect(new Set(sorted(once.claims)).size).to.equal(once.claims.length);
          });
        }
      }
    }
  });
});

describe('narrowClaimValues', () => {
  const cases: ReadonlyArray<[label: string, raw: unknown, expected: string[]]> = [
    ['a string', 'x', ['x']],
    ['an empty string', '', []],
    ['a number', 42, ['42']],
    ['zero', 0, ['0']],
    ['NaN', Number.NaN, []],
    ['true', true, ['true']],
    ['false', false, ['false']],
    ['a bigint', 10n, ['10']],
    ['null', null, []],
    ['undefined', undefined, []],
    ['an object', { a: 1 }, []],
    ['an array, flattened one level', ['a', 1, false, null, { x: 1 }, ['nested'], ''], ['a', '1', 'false']],
  ];
  for (const [label, raw, expected] of cases) {
    it(`narrows ${label}`, () => {
      expect(narrowClaimValues(raw)).to.deep.equal(expected);
    });
  }
});
