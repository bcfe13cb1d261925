import { expect } from 'chai';
import type { ConnectionDeclaration } from '../../../../src/domain/connections/connection.js';
import { readConnection } from '../../../../src/domain/connections/read-connection.js';
import { error } from '../../../../src/domain/settings/problem.js';
import {
  CONNECTION_RULES,
  configuredOrigin,
  declaration,
  oidcSection,
  samlSection,
} from '../../../support/connection-declarations.js';

const at = (name: string, key: string) => `${configuredOrigin(name)}${key === '' ? '' : `:${key}`}`;

/** The keys of the problems (errors and warnings) reading `declared` finds, and whether it made a connection. */
function read(declared: ConnectionDeclaration, environment: 'test' | 'production' = 'test') {
  const { connection, problems } = readConnection(declared, { ...CONNECTION_RULES, environment });
  return { connection, problems, keys: problems.filter((p) => p.severity === 'error').map((problem) => problem.key) };
}

describe('readConnection: the rules of one connection', () => {
  describe('the name', () => {
    const good = ['Acme', 'acme', 'a', 'acme-eu-2', `A${'b'.repeat(62)}`];
    for (const name of good) {
      it(`accepts ${JSON.stringify(name)}`, () => {
        expect(read(declaration(name, oidcSection('acme', ['acme.com']))).keys).to.deep.equal([]);
      });
    }
    const bad: ReadonlyArray<[label: string, name: string]> = [
      ['empty', ''],
      ['starting with a digit', '1acme'],
      ['starting with "-"', '-acme'],
      ['with a dot', 'acme.eu'],
      ['with an underscore', 'acme_eu'],
      ['with a space', 'acme eu'],
      ['with a slash (a path segment)', 'acme/eu'],
      ['with a letter outside ASCII', 'bücher'],
      ['of 64 characters', `A${'b'.repeat(63)}`],
    ];
    for (const [label, name] of bad) {
      it(`refuses a name ${label}, naming the connection`, () => {
        const { connection, keys } = read(declaration(name, oidcSection('acme', ['acme.com'])));
        expect(connection).to.equal(undefined);
        expect(keys[0]).to.equal(configuredOrigin(name));
      });
    }
  });

  describe('Protocol', () => {
    const cases: ReadonlyArray<[label: string, protocol: unknown]> = [
      ['missing', undefined],
      ['empty', ''],
      ['unknown', 'Kerberos'],
      ['in another letter case (values are exact)', 'openidconnect'],
      ['a provider kind offered once only (a social vendor)', 'Social1'],
      ['not a string', 7],
    ];
    for (const [label, protocol] of cases) {
      it(`refuses a Protocol ${label}, listing the protocols a connection can have`, () => {
        const { connection, problems, keys } = read(
          declaration('Acme', oidcSection('acme', ['acme.com'], { Protocol: protocol })),
        );
        expect(connection).to.equal(undefined);
        expect(keys).to.deep.equal([at('Acme', 'Protocol')]);
        expect(problems[0]?.message).to.equal('must be one of OpenIdConnect, Saml2');
      });
    }
  });

  describe('Organization', () => {
    const cases: ReadonlyArray<[label: string, organization: unknown]> = [
      ['missing', undefined],
      ['empty', ''],
      ['blank', '   '],
      ['not a string', 42],
      ['over 200 characters', 'o'.repeat(201)],
      ['with a control character', 'acme\ncorp'],
    ];
    for (const [label, organization] of cases) {
      it(`refuses an Organization ${label}`, () => {
        const { connection, keys } = read(
          declaration('Acme', oidcSection('acme', ['acme.com'], { Organization: organization })),
        );
        expect(connection).to.equal(undefined);
        expect(keys).to.deep.equal([at('Acme', 'Organization')]);
      });
    }
    it('keeps it trimmed', () => {
      const { connection } = read(declaration('Acme', oidcSection('acme', ['acme.com'], { Organization: ' acme ' })));
      expect(connection?.organization).to.equal('acme');
    });
  });

  describe('Domains', () => {
    const cases: ReadonlyArray<[label: string, domains: unknown, keys: string[]]> = [
      ['missing', undefined, ['Domains']],
      ['empty', [], ['Domains']],
      ['not an array', 'acme.com', ['Domains']],
      ['an array of no strings', [1, null], ['Domains']],
      ['a malformed entry, by its index', ['acme.com', 'not a domain'], ['Domains:1']],
      ['a single label', ['acme'], ['Domains:0']],
      ['an IP address', ['192.0.2.1'], ['Domains:0']],
      ['a wildcard in the middle', ['eu.*.acme.com'], ['Domains:0']],
      ['a consumer domain', ['acme.com', 'gmail.com'], ['Domains:1']],
      ['an entry listed twice, in two spellings', ['acme.com', 'ACME.com.'], ['Domains:1']],
      ['an IDNA entry listed twice, in two spellings', ['Bücher.example', 'xn--bcher-kva.example'], ['Domains:1']],
    ];
    for (const [label, domains, keys] of cases) {
      it(`refuses Domains ${label}`, () => {
        const found = read(declaration('Acme', oidcSection('acme', [], { Domains: domains })));
        expect(found.connection).to.equal(undefined);
        expect(found.keys).to.deep.equal(keys.map((key) => at('Acme', key)));
      });
    }
    it('keeps them normalized (lower case, IDNA, no trailing dot), wildcards kept', () => {
      const { connection } = read(
        declaration('Acme', oidcSection('acme', ['ACME.com.', '*.Bücher.Example', 'eu.acme.com'])),
      );
      expect(connection?.domains).to.deep.equal(['acme.com', '*.xn--bcher-kva.example', 'eu.acme.com']);
    });
  });

  describe('the protocol keys', () => {
    const cases: ReadonlyArray<[label: string, section: Record<string, unknown>, key: string]> = [
      ['a SAML key on an OpenID Connect connection', oidcSection('acme', ['acme.com'], { EntityId: 'x' }), 'EntityId'],
      [
        'an OpenID Connect key on a SAML connection',
        samlSection('acme', ['acme.com'], { Authority: 'https://login.acme.example' }),
        'Authority',
      ],
      ['a Scheme (the name is the scheme)', oidcSection('acme', ['acme.com'], { Scheme: 'Acme' }), 'Scheme'],
      ['a CallbackPath', oidcSection('acme', ['acme.com'], { CallbackPath: '/signin-acme' }), 'CallbackPath'],
      [
        'a CallbackPath equal to the derived one (derived, never configured)',
        oidcSection('acme', ['acme.com'], { CallbackPath: '/connections/acme/signin-oidc' }),
        'CallbackPath',
      ],
      [
        'a BackchannelLogoutPath',
        oidcSection('acme', ['acme.com'], { BackchannelLogoutPath: '/bcl' }),
        'BackchannelLogoutPath',
      ],
      [
        'a FrontchannelLogoutPath',
        oidcSection('acme', ['acme.com'], { FrontchannelLogoutPath: '/fcl' }),
        'FrontchannelLogoutPath',
      ],
      ['a ModulePath', samlSection('acme', ['acme.com'], { ModulePath: '/Saml2' }), 'ModulePath'],
      [
        'a SingleLogoutPath',
        samlSection('acme', ['acme.com'], { SingleLogoutPath: '/Saml2/Logout' }),
        'SingleLogoutPath',
      ],
      // A path the protocol cannot do without may not be turned off either.
      ['an empty CallbackPath', oidcSection('acme', ['acme.com'], { CallbackPath: '' }), 'CallbackPath'],
      ['an empty ModulePath', samlSection('acme', ['acme.com'], { ModulePath: '' }), 'ModulePath'],
    ];
    for (const [label, section, key] of cases) {
      it(`refuses ${label}, naming the key under the connection`, () => {
        const { connection, keys } = read(declaration('Acme', section));
        expect(connection).to.equal(undefined);
        expect(keys).to.deep.equal([at('Acme', key)]);
      });
    }

    it('lets an optional path be turned off with "" (BackchannelLogoutPath)', () => {
      const { connection, keys } = read(
        declaration('Acme', oidcSection('acme', ['acme.com'], { BackchannelLogoutPath: '' })),
      );
      expect(keys).to.deep.equal([]);
      expect(connection?.settings).to.include({ BackchannelLogoutPath: '' });
    });
  });

  describe("the protocol's own startup rules, keys named under the connection's origin", () => {
    const cases: ReadonlyArray<[label: string, section: Record<string, unknown>, keys: string[]]> = [
      ['no Authority', oidcSection('acme', ['acme.com'], { Authority: undefined }), ['Authority']],
      [
        'an http Authority off loopback',
        oidcSection('acme', ['acme.com'], { Authority: 'http://login.acme.example' }),
        ['Authority'],
      ],
      [
        'no ClientId nor ClientSecret',
        oidcSection('acme', ['acme.com'], { ClientId: '', ClientSecret: undefined }),
        ['ClientId', 'ClientSecret'],
      ],
      ['Scopes without openid', oidcSection('acme', ['acme.com'], { Scopes: ['email'] }), ['Scopes']],
      ['no EntityId', samlSection('acme', ['acme.com'], { EntityId: undefined }), ['EntityId']],
      ['no MetadataUrl', samlSection('acme', ['acme.com'], { MetadataUrl: '' }), ['MetadataUrl']],
      [
        'an IdpInitiatedReturnUrl off the site',
        samlSection('acme', ['acme.com'], { IdpInitiatedReturnUrl: 'https://evil.example/' }),
        ['IdpInitiatedReturnUrl'],
      ],
    ];
    for (const [label, section, keys] of cases) {
      it(`refuses ${label}`, () => {
        const found = read(declaration('Acme', section));
        expect(found.connection).to.equal(undefined);
        expect(found.keys).to.deep.equal(keys.map((key) => at('Acme', key)));
      });
    }

    it("says a required key is required of the protocol's connections", () => {
      const { problems } = read(declaration('Acme', oidcSection('acme', ['acme.com'], { ClientId: '' })));
      expect(problems[0]?.message).to.equal("is required when OpenIdConnect is a connection's Protocol");
    });

    it("names a folder file's keys after the file", () => {
      const origin = '/srv/connections/acme.json';
      const { keys } = read(declaration('acme', oidcSection('acme', ['acme.com'], { ClientId: '' }), origin));
      expect(keys).to.deep.equal([`${origin}:ClientId`]);
    });

    it('keeps a warning of the protocol without refusing (AllowIdpInitiated in production)', () => {
      const { connection, problems } = read(
        declaration('Acme', samlSection('acme', ['acme.com'], { AllowIdpInitiated: true })),
        'production',
      );
      expect(connection?.name).to.equal('Acme');
      expect(problems.map((problem) => [problem.key, problem.severity])).to.deep.equal([
        [at('Acme', 'AllowIdpInitiated'), 'warning'],
      ]);
    });
  });

  it('keeps the problems found while reading, and refuses for them', () => {
    const reading = error('/srv/connections/acme.json:ClientSecretFile', 'names a file that cannot be read');
    const found = read({ ...declaration('acme', oidcSection('acme', ['acme.com'])), problems: [reading] });
    expect(found.connection).to.equal(undefined);
    expect(found.problems).to.deep.include(reading);
  });

  it('reports every problem at once, never a value', () => {
    const section = oidcSection('', ['gmail.com', 'bad domain'], {
      ClientSecret: 'SENTINEL-read-connection-secret',
      Authority: 'http://login.acme.example',
      Scheme: 'x',
    });
    const { problems } = read(declaration('Acme', section));
    expect(problems.map((problem) => problem.key)).to.have.members([
      at('Acme', 'Scheme'),
      at('Acme', 'Organization'),
      at('Acme', 'Domains:0'),
      at('Acme', 'Domains:1'),
      at('Acme', 'Authority'),
    ]);
    expect(JSON.stringify(problems)).not.to.contain('SENTINEL');
  });

  describe('the connection it builds', () => {
    it("an OpenID Connect connection: the protocol's defaults, the paths under its name, the name as its scheme", () => {
      const { connection } = read(declaration('Globex', oidcSection('globex', ['globex.com'])));
      expect(connection).to.include({
        name: 'Globex',
        id: 'globex',
        organization: 'globex',
        displayName: 'Globex',
        showOnLoginPage: false,
        sendLoginHint: true,
        issuer: 'https://login.globex.example',
        issuerSetting: 'Authority',
        origin: configuredOrigin('Globex'),
      });
      expect(connection?.protocol.key).to.equal('OpenIdConnect');
      expect(connection?.settings).to.include({
        Enabled: true,
        Scheme: 'Globex',
        DisplayName: 'Globex',
        CallbackPath: '/connections/globex/signin-oidc',
        BackchannelLogoutPath: '/connections/globex/backchannel-logout',
        FrontchannelLogoutPath: '/connections/globex/frontchannel-logout',
        ResponseMode: 'query',
      });
    });

    it('a SAML connection: its ACS and logout paths, its metadata URL as its identity provider', () => {
      const { connection } = read(
        declaration('Acme', samlSection('acme', ['acme.com'], { DisplayName: 'Acme Corp', SingleLogout: false })),
      );
      expect(connection).to.include({
        displayName: 'Acme Corp',
        issuer: 'https://idp.acme.example/metadata',
        issuerSetting: 'MetadataUrl',
      });
      expect(connection?.settings).to.include({
        Scheme: 'Acme',
        ModulePath: '/connections/acme/saml2/acs',
        SingleLogoutPath: '/connections/acme/saml2/logout',
        RequireSignedAssertions: true,
      });
    });

    it('a SAML connection in an aggregate: its IdpEntityId is its identity provider', () => {
      const { connection } = read(
        declaration('Acme', samlSection('acme', ['acme.com'], { IdpEntityId: 'https://idp.acme.example' })),
      );
      expect(connection).to.include({ issuer: 'https://idp.acme.example', issuerSetting: 'IdpEntityId' });
    });

    it('the connection keys: ShowOnLoginPage, SendLoginHint, ClaimMappings', () => {
      const { connection } = read(
        declaration(
          'Acme',
          oidcSection('acme', ['acme.com'], {
            ShowOnLoginPage: true,
            SendLoginHint: false,
            ClaimMappings: { upn: 'application:email', dept: 'application:group' },
          }),
        ),
      );
      expect(connection).to.include({ showOnLoginPage: true, sendLoginHint: false });
      expect(connection?.claimMappings).to.deep.equal({ upn: 'application:email', dept: 'application:group' });
    });

    it('a fingerprint equal for the same keys in any order, and different for any change', () => {
      const fingerprint = (name: string, section: Record<string, unknown>) =>
        read(declaration(name, section)).connection?.fingerprint;
      const section = oidcSection('acme', ['acme.com']);
      const reordered = Object.fromEntries(Object.entries(section).reverse());
      expect(fingerprint('Acme', reordered)).to.equal(fingerprint('Acme', section));
      expect(fingerprint('Acme', { ...section, ClientSecret: 'rotated' })).not.to.equal(fingerprint('Acme', section));
      expect(fingerprint('Acme', { ...section, Domains: ['acme.com', 'acme.org'] })).not.to.equal(
        fingerprint('Acme', section),
      );
      expect(fingerprint('ACME', section), 'the name as declared').not.to.equal(fingerprint('Acme', section));
    });
  });

  describe("GrantsDeploymentRoles, RoleMappings and PermissionMappings: what a customer's provider may grant", () => {
    const grants = { ...oidcSection('acme', ['acme.com']), GrantsDeploymentRoles: true };

    it("refuses GrantsDeploymentRoles in a folder's file, naming the key: only the configuration can say it", () => {
      const { connection, keys } = read(declaration('Acme', grants, '/srv/connections/Acme.json'));
      expect(connection).to.equal(undefined);
      expect(keys).to.deep.equal(['/srv/connections/Acme.json:GrantsDeploymentRoles']);
    });

    it('accepts it from the configuration, with a warning that says what it means', () => {
      const { connection, problems } = read({ ...declaration('Acme', grants), fromConfiguration: true });
      expect(connection?.grantsDeploymentRoles).to.equal(true);
      expect(problems.map((p) => [p.severity, p.key])).to.deep.equal([
        ['warning', at('Acme', 'GrantsDeploymentRoles')],
      ]);
      expect(problems[0]?.message).to.contain("grants the deployment's own roles");
    });

    it('is off by default, from the configuration too', () => {
      const { connection } = read({
        ...declaration('Acme', oidcSection('acme', ['acme.com'])),
        fromConfiguration: true,
      });
      expect(connection?.grantsDeploymentRoles).to.equal(false);
      expect(connection?.roleMappings).to.deep.equal({});
      expect(connection?.permissionMappings).to.deep.equal({});
    });

    it('reads RoleMappings and PermissionMappings', () => {
      const section = {
        ...oidcSection('acme', ['acme.com']),
        RoleMappings: { 'Acme Admins': 'admin' },
        PermissionMappings: { 'Acme Billing': 'billing.read' },
      };
      const { connection } = read(declaration('Acme', section));
      expect(connection?.roleMappings).to.deep.equal({ 'Acme Admins': 'admin' });
      expect(connection?.permissionMappings).to.deep.equal({ 'Acme Billing': 'billing.read' });
    });

    const badMappings: ReadonlyArray<[label: string, mappings: Record<string, string>]> = [
      ['an empty role', { 'Acme Admins': '' }],
      ['a blank role', { 'Acme Admins': '  ' }],
      ['a control character', { 'Acme Admins': 'ad\nmin' }],
      ['an empty provider value', { '': 'admin' }],
    ];
    for (const [label, mappings] of badMappings) {
      it(`refuses RoleMappings with ${label}, naming the key`, () => {
        const { connection, keys } = read(
          declaration('Acme', { ...oidcSection('acme', ['acme.com']), RoleMappings: mappings }),
        );
        expect(connection).to.equal(undefined);
        expect(keys).to.deep.equal([at('Acme', 'RoleMappings')]);
      });
    }
  });
});
