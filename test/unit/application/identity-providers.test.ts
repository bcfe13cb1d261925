import { expect } from 'chai';
import { ConnectionAdapters } from '../../../src/application/connections/connection-adapters.js';
import { ConnectionRegistry } from '../../../src/application/connections/connection-registry.js';
import { connectionInfo, IdentityProviders } from '../../../src/application/identity-providers.js';
import type { IdentityProvider, LogoutEndpoint } from '../../../src/application/ports/identity-provider.js';
import type { Connection } from '../../../src/domain/connections/connection.js';
import { CONNECTION_RULES, declaration, oidcSection, samlSection } from '../../support/connection-declarations.js';
import { FakeIdentityProvider } from '../../support/fake-identity-provider.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

const backChannel = (path: string): LogoutEndpoint => ({
  path,
  messageMethods: ['POST'],
  maxBodyBytes: 1024,
  channel: 'back',
});

/** A connection's adapter as its protocol's record would describe it: its info, and its logout path when it has one. */
function adapterOf(connection: Connection): IdentityProvider {
  const logoutPath = 'BackchannelLogoutPath' in connection.settings ? connection.settings.BackchannelLogoutPath : '';
  return Object.assign(new FakeIdentityProvider(), {
    info: connectionInfo(connection),
    ...(typeof logoutPath === 'string' && logoutPath !== '' ? { logoutEndpoints: [backChannel(logoutPath)] } : {}),
  });
}

/** The deployment's own OpenID Connect provider, with a scheme of its own and a back-channel logout path. */
function ownProvider(): IdentityProvider {
  return Object.assign(new FakeIdentityProvider(), {
    info: {
      key: 'OpenIdConnect',
      kind: 'OpenIdConnect',
      scheme: 'Corporate',
      displayName: 'Corporate',
      callbackPath: '/signin-oidc',
    },
    logoutEndpoints: [backChannel('/backchannel-logout-oidc')],
  });
}

describe('IdentityProviders: every provider, found the ways the house asks', () => {
  let registry: ConnectionRegistry;
  let built: string[];
  let providers: IdentityProviders;
  let own: IdentityProvider;
  const declare = (name: string, section: Record<string, unknown>) =>
    registry.apply([{ kind: 'declared', declaration: declaration(name, section) }]);

  beforeEach(() => {
    registry = new ConnectionRegistry(CONNECTION_RULES, new Set(['cookies', 'openidconnect', 'saml2', 'corporate']));
    built = [];
    const adapters = new ConnectionAdapters(
      registry,
      async (connection) => {
        built.push(connection.name);
        return adapterOf(connection);
      },
      quiet,
    );
    own = ownProvider();
    providers = new IdentityProviders([own], adapters);
    declare(
      'Acme',
      samlSection('acme', ['acme.com'], { SingleLogout: false, DisplayName: 'Acme Corp', ShowOnLoginPage: true }),
    );
    declare(
      'Globex',
      oidcSection('globex', ['globex.com', '*.globex.eu'], { ClaimMappings: { upn: 'application:email' } }),
    );
  });

  it('byScheme: a built-in provider by its scheme exactly, a connection by its name in any letter case', async () => {
    expect(await providers.byScheme('Corporate')).to.equal(own);
    expect(await providers.byScheme('corporate'), 'a built-in scheme is exact').to.equal(undefined);
    expect(await providers.byScheme('OpenIdConnect'), 'a key is no scheme').to.equal(undefined);
    expect((await providers.byScheme('globex'))?.info.key).to.equal('Globex');
    expect((await providers.byScheme('GLOBEX'))?.info.key).to.equal('Globex');
    expect(await providers.byScheme('initech')).to.equal(undefined);
  });

  it('byKey: a built-in provider by its key, a connection by its name; nothing built before', async () => {
    expect(built).to.deep.equal([]);
    expect(await providers.byKey('OpenIdConnect')).to.equal(own);
    expect((await providers.byKey('Acme'))?.info).to.include({ key: 'Acme', kind: 'Saml2' });
    expect(built).to.deep.equal(['Acme']);
    expect(await providers.byKey('Saml2')).to.equal(undefined);
  });

  it("builtInAt: the deployment's own callback and logout paths, in any letter case, routed as configured", () => {
    expect(providers.builtInAt('/signin-oidc')).to.deep.equal({ provider: own, at: 'callback', route: '/signin-oidc' });
    expect(providers.builtInAt('/SIGNIN-OIDC')).to.deep.equal({ provider: own, at: 'callback', route: '/signin-oidc' });
    expect(providers.builtInAt('/BackChannel-Logout-OIDC')).to.deep.equal({
      provider: own,
      at: 'logout',
      endpoint: own.logoutEndpoints?.[0],
      route: '/backchannel-logout-oidc',
    });
    expect(providers.builtInAt('/connections/acme/saml2/acs')).to.equal(undefined);
    expect(providers.builtInAt('/')).to.equal(undefined);
  });

  it('connectionAt: the connection owning a path under /connections/<name>/', async () => {
    expect(providers.isConnectionPath('/connections/acme/saml2/acs')).to.equal(true);
    expect(providers.isConnectionPath('/Connections/ACME/saml2/acs')).to.equal(true);
    expect(providers.isConnectionPath('/signin-oidc')).to.equal(false);
    expect(providers.isConnectionPath('/connections/')).to.equal(false);
    const acs = await providers.connectionAt('/connections/acme/saml2/acs');
    expect(acs?.at).to.equal('callback');
    expect(acs?.provider?.info.key).to.equal('Acme');
    const shouted = await providers.connectionAt('/CONNECTIONS/Acme/SAML2/ACS');
    expect(shouted?.at).to.equal('callback');
    // Counted under the template, whatever the connection and however the path was spelled.
    expect(shouted && 'route' in shouted && shouted.route).to.equal('/connections/:name/saml2/acs');
    const logout = await providers.connectionAt('/connections/GLOBEX/backchannel-logout');
    expect(logout?.at).to.equal('logout');
    expect(logout && 'route' in logout && logout.route).to.equal('/connections/:name/backchannel-logout');
    expect(logout?.provider?.info.key).to.equal('Globex');
    // Another connection's path under this one's name is nobody's.
    expect(await providers.connectionAt('/connections/acme/signin-oidc')).to.equal(undefined);
    expect(await providers.connectionAt('/connections/globex/saml2/acs')).to.equal(undefined);
  });

  it('connectionAt: a path of no connection in force is unknown_connection, building nothing', async () => {
    expect(await providers.connectionAt('/connections/initech/signin-oidc')).to.deep.equal({
      provider: undefined,
      at: 'unknown_connection',
    });
    registry.apply([{ kind: 'removed', name: 'Globex', origin: declaration('Globex', {}).origin }]);
    expect(await providers.connectionAt('/connections/globex/signin-oidc')).to.deep.equal({
      provider: undefined,
      at: 'unknown_connection',
    });
    expect(built).to.deep.equal([]);
  });

  it('listed: the own providers, then only the connections shown on the login page', () => {
    expect(providers.listed().map((info) => [info.scheme, info.displayName, info.callbackPath])).to.deep.equal([
      ['Corporate', 'Corporate', '/signin-oidc'],
      ['Acme', 'Acme Corp', '/connections/acme/saml2/acs'],
    ]);
  });

  it('displayNameOf: by key or scheme, a connection without building it', () => {
    expect(providers.displayNameOf('OpenIdConnect')).to.equal('Corporate');
    expect(providers.displayNameOf('Corporate')).to.equal('Corporate');
    expect(providers.displayNameOf('Acme')).to.equal('Acme Corp');
    expect(providers.displayNameOf('Globex')).to.equal('Globex');
    expect(providers.displayNameOf('Initech')).to.equal(undefined);
    expect(built).to.deep.equal([]);
  });

  it('connectionForDomain: by normalized domain', () => {
    expect(providers.connectionForDomain('globex.com')?.name).to.equal('Globex');
    expect(providers.connectionForDomain('paris.globex.eu')?.name).to.equal('Globex');
    expect(providers.connectionForDomain('globex.eu')).to.equal(undefined);
    expect(providers.connectionForDomain('acme.com')?.name).to.equal('Acme');
  });

  it("organizationOf and claimMappingsOf: a connection's, never a built-in provider's", () => {
    expect(providers.organizationOf('Globex')).to.deep.equal({
      connection: 'Globex',
      organization: 'globex',
      domains: ['globex.com', '*.globex.eu'],
      pendingDomains: [],
      roleMappings: {},
      permissionMappings: {},
      grantsDeploymentRoles: false,
    });
    expect(providers.organizationOf('OpenIdConnect')).to.equal(undefined);
    expect(providers.organizationOf('Initech')).to.equal(undefined);
    expect(providers.claimMappingsOf('Globex')).to.deep.equal({ upn: 'application:email' });
  });

  it('holds: a session of a connection in force for the same organization only', () => {
    expect(providers.holds({ name: 'Globex', organization: 'globex' })).to.equal(true);
    expect(providers.holds({ name: 'globex', organization: 'globex' })).to.equal(true);
    expect(providers.holds({ name: 'Globex', organization: 'acme' })).to.equal(false);
    declare('Globex', oidcSection('globex-holding', ['globex.com', '*.globex.eu']));
    expect(providers.holds({ name: 'Globex', organization: 'globex' }), 'moved to another organization').to.equal(
      false,
    );
    registry.apply([{ kind: 'removed', name: 'Globex', origin: declaration('Globex', {}).origin }]);
    expect(providers.holds({ name: 'Globex', organization: 'globex-holding' }), 'removed').to.equal(false);
  });

  it("holds a sign-in with the deployment's roles only while the configuration still lets its connection grant them", () => {
    const declareTrusted = (grants: boolean) =>
      registry.apply([
        {
          kind: 'declared',
          declaration: {
            ...declaration('Staff', { ...oidcSection('staff', ['staff.test']), GrantsDeploymentRoles: grants }),
            fromConfiguration: true,
          },
        },
      ]);
    declareTrusted(true);
    const withRoles = { name: 'Staff', organization: 'staff', grantsDeploymentRoles: true };
    expect(providers.holds(withRoles)).to.equal(true);
    declareTrusted(false);
    expect(providers.holds(withRoles), 'the grant withdrawn').to.equal(false);
    expect(providers.holds({ ...withRoles, grantsDeploymentRoles: false }), 'a sign-in without them').to.equal(true);
  });

  it('without connections: no connection path, no e-mail form, none when no provider either', async () => {
    const plain = new IdentityProviders([own]);
    expect(plain.hasConnections).to.equal(false);
    expect(plain.none).to.equal(false);
    expect(plain.isConnectionPath('/connections/acme/saml2/acs')).to.equal(false);
    expect(await plain.connectionAt('/connections/acme/saml2/acs')).to.equal(undefined);
    expect(plain.holds({ name: 'Acme', organization: 'acme' })).to.equal(false);
    expect(new IdentityProviders([]).none).to.equal(true);
    expect(providers.hasConnections).to.equal(true);
    expect(new IdentityProviders([], new ConnectionAdapters(registry, async (c) => adapterOf(c), quiet)).none).to.equal(
      false,
    );
  });
});
