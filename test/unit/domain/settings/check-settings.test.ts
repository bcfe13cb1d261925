import { sectionsOf } from '../../../support/provider-sections.js';
import { builtInProviders } from '../../../../src/bootstrap/provider-catalogue.js';
import { expect } from 'chai';
import { makeSigningCredential } from '../../../../scripts/saml/signing-credential.js';
import {
  checkSettings,
  registeredProviders,
  type SettingsContext,
} from '../../../../src/domain/settings/check-settings.js';
import { defaultSettings } from '../../../../src/domain/settings/default-settings.js';
import type { SettingsProblem } from '../../../../src/domain/settings/problem.js';
import type { Environment, ProjectTemplateSettings } from '../../../../src/domain/settings/settings.js';

const OIDC = 'ProjectTemplate:Authentication:Providers:OpenIdConnect';
const context = (overrides: Partial<SettingsContext> = {}): SettingsContext => ({
  environment: 'development',
  unknownKeys: [],
  providers: builtInProviders,
  isRoutedPath: (path) => ['/Account/Login', '/'].includes(path),
  ...overrides,
});

function withSettings(change: (s: ProjectTemplateSettings) => void): ProjectTemplateSettings {
  const settings = defaultSettings(builtInProviders);
  change(settings);
  return settings;
}

function enableOidc(s: ProjectTemplateSettings) {
  Object.assign(sectionsOf(s).OpenIdConnect, {
    Enabled: true,
    Authority: 'https://login.example.com',
    ClientId: 'gatehouse',
    ClientSecret: 'SENTINEL-secret-value-1234',
  });
}

const errors = (problems: SettingsProblem[]) => problems.filter((p) => p.severity === 'error');
const errorKeys = (problems: SettingsProblem[]) => errors(problems).map((p) => p.key);

describe('checkSettings', () => {
  it('accepts the defaults: cookie authentication on, every provider off', () => {
    const settings = defaultSettings(builtInProviders);
    expect(checkSettings(settings, context())).to.deep.equal([]);
    expect(registeredProviders(settings)).to.deep.equal([]);
  });

  it('does not validate disabled providers, which may keep placeholders', () => {
    const settings = withSettings((s) => {
      sectionsOf(s).OpenIdConnect.Authority = '<authority_url>';
      sectionsOf(s).Saml2.MetadataUrl = 'not a url';
    });
    expect(checkSettings(settings, context())).to.deep.equal([]);
  });

  it('does not register an enabled provider while authentication is off', () => {
    const settings = withSettings((s) => {
      s.Authentication.Enabled = false;
      s.Authorization.RequireAuthenticatedUserByDefault = false;
      sectionsOf(s).OpenIdConnect.Enabled = true;
    });
    expect(registeredProviders(settings)).to.deep.equal([]);
    expect(errors(checkSettings(settings, context()))).to.deep.equal([]);
  });

  it('reports every missing OpenID Connect value at once, naming the full keys', () => {
    const settings = withSettings((s) => {
      sectionsOf(s).OpenIdConnect.Enabled = true;
      sectionsOf(s).OpenIdConnect.CallbackPath = '';
    });
    expect(errorKeys(checkSettings(settings, context()))).to.have.members([
      `${OIDC}:Authority`,
      `${OIDC}:ClientId`,
      `${OIDC}:ClientSecret`,
      `${OIDC}:CallbackPath`,
    ]);
  });

  it('says when the Authority still holds the starter placeholder', () => {
    const settings = withSettings((s) => {
      enableOidc(s);
      sectionsOf(s).OpenIdConnect.Authority = '<authority_url>';
    });
    const [problem] = errors(checkSettings(settings, context()));
    expect(problem?.key).to.equal(`${OIDC}:Authority`);
    expect(problem?.message).to.contain('placeholder');
  });

  const authorityCases: Array<[string, Environment, boolean]> = [
    ['https://login.example.com', 'production', true],
    ['http://login.example.com', 'development', false],
    ['http://127.0.0.1:4000', 'development', true],
    ['http://localhost:4000/oidc', 'test', true],
    ['http://127.0.0.1:4000', 'production', false],
    ['ftp://login.example.com', 'development', false],
    ['login.example.com', 'development', false],
  ];
  for (const [authority, environment, accepted] of authorityCases) {
    it(`${accepted ? 'accepts' : 'rejects'} Authority ${authority} in ${environment}`, () => {
      const settings = withSettings((s) => {
        enableOidc(s);
        sectionsOf(s).OpenIdConnect.Authority = authority;
        s.Hosting.PublicOrigin = 'https://app.example.com';
      });
      const keys = errorKeys(checkSettings(settings, context({ environment })));
      expect(keys.includes(`${OIDC}:Authority`)).to.equal(!accepted);
    });
  }

  it('never puts a configured secret value in any message', () => {
    const settings = withSettings((s) => {
      enableOidc(s);
      sectionsOf(s).OpenIdConnect.ClientId = '';
      sectionsOf(s).OpenIdConnect.ResponseType = 'id_token';
    });
    const problems = checkSettings(settings, context());
    expect(problems.length).to.be.greaterThan(1);
    expect(JSON.stringify(problems)).not.to.contain('SENTINEL-secret-value-1234');
  });

  it('rejects implicit and hybrid response types', () => {
    const settings = withSettings((s) => {
      enableOidc(s);
      sectionsOf(s).OpenIdConnect.ResponseType = 'code id_token';
    });
    expect(errorKeys(checkSettings(settings, context()))).to.deep.equal([`${OIDC}:ResponseType`]);
  });

  it('rejects authentication off with the authenticated fallback on, and says how to fix it', () => {
    const settings = withSettings((s) => {
      s.Authentication.Enabled = false;
    });
    const [problem, ...rest] = checkSettings(settings, context());
    expect(rest).to.deep.equal([]);
    expect(problem?.key).to.equal('ProjectTemplate:Authorization:RequireAuthenticatedUserByDefault');
    expect(problem?.message).to.contain('ProjectTemplate__Authorization__RequireAuthenticatedUserByDefault=false');
  });

  it('accepts the --authProvider none posture, warning that unannotated endpoints are public', () => {
    const settings = withSettings((s) => {
      s.Authentication.Enabled = false;
      s.Authorization.RequireAuthenticatedUserByDefault = false;
    });
    const [problem, ...rest] = checkSettings(settings, context());
    expect(rest).to.deep.equal([]);
    expect(problem).to.include({
      severity: 'warning',
      key: 'ProjectTemplate:Authorization:RequireAuthenticatedUserByDefault',
    });
    expect(problem?.message).to.contain('the --authProvider none posture');
    expect(problem?.message).to.contain('every endpoint without authorization metadata is public');
  });

  it('warns as well when only the fallback is off, authentication staying on', () => {
    const settings = withSettings((s) => (s.Authorization.RequireAuthenticatedUserByDefault = false));
    const problems = checkSettings(settings, context());
    expect(problems.map((p) => [p.severity, p.key])).to.deep.equal([
      ['warning', 'ProjectTemplate:Authorization:RequireAuthenticatedUserByDefault'],
    ]);
    expect(problems[0]?.message).to.contain('every endpoint without authorization metadata is public');
    expect(problems[0]?.message).not.to.contain('none posture');
  });

  it('rejects a DefaultChallengeScheme that names no registered scheme', () => {
    const settings = withSettings((s) => {
      s.Authentication.DefaultChallengeScheme = 'OpenIdConnect';
    });
    expect(errorKeys(checkSettings(settings, context()))).to.deep.equal([
      'ProjectTemplate:Authentication:DefaultChallengeScheme',
    ]);
    enableOidc(settings);
    expect(errorKeys(checkSettings(settings, context()))).to.deep.equal([]);
  });

  it('rejects two providers with the same scheme, or a provider named like the cookie scheme', () => {
    const settings = withSettings((s) => {
      enableOidc(s);
      sectionsOf(s).OpenIdConnect.Scheme = 'cookies';
    });
    expect(errorKeys(checkSettings(settings, context()))).to.include(`${OIDC}:Scheme`);
    const two = withSettings((s) => {
      enableOidc(s);
      Object.assign(sectionsOf(s).Social1, {
        Enabled: true,
        ClientId: 'a',
        ClientSecret: 'b',
        Scheme: 'OpenIdConnect',
      });
    });
    const keys = errorKeys(checkSettings(two, context()));
    expect(keys).to.deep.equal(['ProjectTemplate:Authentication:Providers:Social1:Scheme']);
  });

  const callbackCases: Array<[string, string | undefined]> = [
    ['/signin-oidc', undefined],
    ['signin-oidc', 'path'],
    ['//evil.example/cb', 'path'],
    ['/cb?x=1', 'path'],
    ['https://app.example.com/cb', 'path'],
    ['/Account/Login', 'routed'],
    ['/signin-social1', 'collides'],
  ];
  for (const [path, expected] of callbackCases) {
    it(`checks CallbackPath ${path}`, () => {
      const settings = withSettings((s) => {
        enableOidc(s);
        sectionsOf(s).OpenIdConnect.CallbackPath = path;
        Object.assign(sectionsOf(s).Social1, { Enabled: true, ClientId: 'a', ClientSecret: 'b' });
      });
      const problems = errors(checkSettings(settings, context()));
      const messages = problems.map((p) => `${p.key} ${p.message}`).join('\n');
      if (!expected) expect(problems).to.deep.equal([]);
      else if (expected === 'path') expect(messages).to.contain(`${OIDC}:CallbackPath must be a path`);
      else if (expected === 'routed') expect(messages).to.contain('collides with a routed application endpoint');
      else expect(messages).to.contain('collides with');
    });
  }

  const logoutPathCases: Array<[string, string | undefined]> = [
    ['/backchannel-logout-oidc', undefined],
    ['', undefined],
    ['backchannel', 'path'],
    ['https://app.example.com/bcl', 'path'],
    ['/Account/Login', 'routed'],
    ['/signin-oidc', 'collides'],
    ['/signin-social1', 'collides'],
  ];
  for (const [path, expected] of logoutPathCases) {
    it(`checks BackchannelLogoutPath "${path}"`, () => {
      const settings = withSettings((s) => {
        enableOidc(s);
        sectionsOf(s).OpenIdConnect.BackchannelLogoutPath = path;
        Object.assign(sectionsOf(s).Social1, { Enabled: true, ClientId: 'a', ClientSecret: 'b' });
      });
      const problems = errors(checkSettings(settings, context()));
      const messages = problems.map((p) => `${p.key} ${p.message}`).join('\n');
      if (!expected) expect(problems).to.deep.equal([]);
      else if (expected === 'path') expect(messages).to.contain(`${OIDC}:BackchannelLogoutPath must be a path`);
      else if (expected === 'routed')
        expect(messages).to.contain(`${OIDC}:BackchannelLogoutPath collides with a routed application endpoint`);
      else expect(messages).to.match(/:(BackchannelLogoutPath|CallbackPath) collides with/);
    });
  }

  it('names the required values of Saml2 and the social providers', () => {
    const settings = withSettings((s) => {
      sectionsOf(s).Saml2.Enabled = true;
      sectionsOf(s).Social3.Enabled = true;
    });
    const keys = errorKeys(checkSettings(settings, context()));
    expect(keys).to.have.members([
      'ProjectTemplate:Authentication:Providers:Saml2:EntityId',
      'ProjectTemplate:Authentication:Providers:Saml2:MetadataUrl',
      'ProjectTemplate:Authentication:Providers:Social3:ClientId',
      'ProjectTemplate:Authentication:Providers:Social3:ClientSecret',
    ]);
  });

  it('names a social provider by its key and its vendor, as the login page and the demo call it', () => {
    const settings = withSettings((s) => {
      sectionsOf(s).Social3.Enabled = true;
      sectionsOf(s).OpenIdConnect.Enabled = true;
    });
    const messages = errors(checkSettings(settings, context())).map((p) => `${p.key} ${p.message}`);
    expect(messages).to.include(
      'ProjectTemplate:Authentication:Providers:Social3:ClientId is required when the Social3 (GitHub) provider is enabled',
    );
    expect(messages).to.include(`${OIDC}:ClientId is required when the OpenIdConnect provider is enabled`);
  });

  describe('Saml2 IdP-initiated sign-in', () => {
    const SAML = 'ProjectTemplate:Authentication:Providers:Saml2';
    const enableSaml = (s: ProjectTemplateSettings, extra: Record<string, unknown>) =>
      Object.assign(sectionsOf(s).Saml2, {
        Enabled: true,
        EntityId: 'https://app.example.com/saml',
        MetadataUrl: 'https://idp.example.com/metadata',
        ...extra,
      });

    it('is off by default and then warns nowhere', () => {
      const settings = withSettings((s) => enableSaml(s, {}));
      expect(sectionsOf(settings).Saml2.AllowIdpInitiated).to.equal(false);
      expect(sectionsOf(settings).Saml2.IdpInitiatedReturnUrl).to.equal('/');
      const problems = checkSettings(settings, context({ environment: 'production' }));
      expect(problems.filter((p) => p.key.startsWith(SAML))).to.deep.equal([]);
    });

    it('on in production: a warning naming AllowIdpInitiated and the login-CSRF risk; none in development', () => {
      const settings = withSettings((s) => enableSaml(s, { AllowIdpInitiated: true }));
      const [warning, ...more] = checkSettings(settings, context({ environment: 'production' })).filter((p) =>
        p.key.startsWith(SAML),
      );
      expect(more).to.deep.equal([]);
      expect(warning?.severity).to.equal('warning');
      expect(warning?.key).to.equal(`${SAML}:AllowIdpInitiated`);
      expect(warning?.message).to.contain('login CSRF');
      expect(checkSettings(settings, context()).filter((p) => p.key.startsWith(SAML))).to.deep.equal([]);
    });

    it('MetadataSigningCertificate, when set, must be one PEM certificate; MetadataMaxBytes is bounded', () => {
      const bad = withSettings((s) =>
        enableSaml(s, { MetadataSigningCertificate: 'SENTINEL-not-a-certificate', MetadataMaxBytes: 1024 ** 3 }),
      );
      const problems = errors(checkSettings(bad, context()));
      expect(problems.map((p) => p.key)).to.have.members([
        `${SAML}:MetadataSigningCertificate`,
        `${SAML}:MetadataMaxBytes`,
      ]);
      expect(JSON.stringify(problems)).not.to.contain('SENTINEL');
      const good = withSettings((s) =>
        enableSaml(s, {
          MetadataSigningCertificate: makeSigningCredential().certificatePem,
          MetadataMaxBytes: 16 * 1024 * 1024,
          IdpEntityId: 'https://idp.example.edu/idp/shibboleth',
        }),
      );
      expect(errors(checkSettings(good, context()))).to.deep.equal([]);
    });

    for (const value of ['https://elsewhere.example/', '//elsewhere.example', '', 'portal']) {
      it(`IdpInitiatedReturnUrl ${JSON.stringify(value)} is refused: it must be a local URL`, () => {
        const settings = withSettings((s) => enableSaml(s, { IdpInitiatedReturnUrl: value }));
        const problems = errors(checkSettings(settings, context()));
        expect(problems.map((p) => p.key)).to.deep.equal([`${SAML}:IdpInitiatedReturnUrl`]);
        expect(problems[0]?.message).to.contain('must be a local URL');
      });
    }
  });

  describe('social providers', () => {
    const SOCIAL = ['Social1', 'Social2', 'Social3'] as const;
    const enableSocial = (s: ProjectTemplateSettings, key: (typeof SOCIAL)[number]) =>
      Object.assign(sectionsOf(s)[key], { Enabled: true, ClientId: 'a', ClientSecret: 'SENTINEL-b-1234' });
    const socialContext = (environment: Environment = 'development') => context({ environment });

    it('need no DisplayName and no endpoint overrides: empty shows the vendor name and uses its production endpoints', () => {
      const settings = withSettings((s) => SOCIAL.forEach((key) => enableSocial(s, key)));
      expect(errors(checkSettings(settings, socialContext()))).to.deep.equal([]);
    });

    const overrides: Array<[string, Environment, boolean]> = [
      ['https://login.example.com/authorize', 'production', true],
      ['http://127.0.0.1:4000/authorize', 'development', true],
      ['http://localhost:4000/authorize', 'test', true],
      ['http://127.0.0.1:4000/authorize', 'production', false],
      ['http://login.example.com/authorize', 'development', false],
      ['login.example.com/authorize', 'development', false],
      ['ftp://login.example.com/authorize', 'development', false],
    ];
    for (const [value, environment, accepted] of overrides) {
      it(`${accepted ? 'accepts' : 'refuses'} the endpoint override ${value} in ${environment}`, () => {
        for (const name of [
          'AuthorizationEndpoint',
          'TokenEndpoint',
          'UserInformationEndpoint',
          'UserEmailsEndpoint',
        ]) {
          const settings = withSettings((s) => {
            enableSocial(s, 'Social3');
            Object.assign(sectionsOf(s).Social3, { [name]: value });
            s.Hosting.PublicOrigin = 'https://app.example.com';
            s.Hosting.TrustProxy = true;
          });
          const keys = errorKeys(checkSettings(settings, socialContext(environment)));
          expect(keys, name).to.deep.equal(
            accepted ? [] : [`ProjectTemplate:Authentication:Providers:Social3:${name}`],
          );
        }
      });
    }

    it("refuses openid among Social1 Scopes (Microsoft would send an ID token from the user's own tenant)", () => {
      const settings = withSettings((s) => {
        enableSocial(s, 'Social1');
        sectionsOf(s).Social1.Scopes = ['openid', 'profile'];
      });
      const problems = errors(checkSettings(settings, socialContext()));
      expect(problems.map((p) => p.key)).to.deep.equal(['ProjectTemplate:Authentication:Providers:Social1:Scopes']);
      expect(problems[0]?.message).to.contain('Microsoft Graph');
    });
  });

  it('requires an https PublicOrigin in production', () => {
    const trusted = (change: (s: ProjectTemplateSettings) => void = () => undefined) =>
      withSettings((s) => {
        s.Hosting.TrustProxy = true;
        change(s);
      });
    expect(errorKeys(checkSettings(trusted(), context({ environment: 'production' })))).to.deep.equal([
      'ProjectTemplate:Hosting:PublicOrigin',
    ]);
    const http = trusted((s) => (s.Hosting.PublicOrigin = 'http://app.example.com'));
    expect(errorKeys(checkSettings(http, context({ environment: 'production' })))).to.deep.equal([
      'ProjectTemplate:Hosting:PublicOrigin',
    ]);
    const withPath = withSettings((s) => (s.Hosting.PublicOrigin = 'https://app.example.com/app'));
    expect(errorKeys(checkSettings(withPath, context()))).to.deep.equal(['ProjectTemplate:Hosting:PublicOrigin']);
    const good = trusted((s) => (s.Hosting.PublicOrigin = 'https://app.example.com'));
    expect(errorKeys(checkSettings(good, context({ environment: 'production' })))).to.deep.equal([]);
  });

  it('refuses production without TrustProxy, naming the key and why, unless authentication is off (no cookie is ever set)', () => {
    const settings = withSettings((s) => (s.Hosting.PublicOrigin = 'https://app.example.com'));
    const problems = checkSettings(settings, context({ environment: 'production' }));
    expect(errorKeys(problems)).to.deep.equal(['ProjectTemplate:Hosting:TrustProxy']);
    expect(problems.find((p) => p.severity === 'error')?.message).to.match(/X-Forwarded-Proto.*Secure session cookie/);
    settings.Authentication.Enabled = false;
    settings.Authorization.RequireAuthenticatedUserByDefault = false;
    expect(errorKeys(checkSettings(settings, context({ environment: 'production' })))).to.deep.equal([]);
  });

  it('warns in production about the per-process memory store', () => {
    const settings = withSettings((s) => {
      s.Hosting.PublicOrigin = 'https://app.example.com';
      s.Hosting.TrustProxy = true;
    });
    const warnings = () =>
      checkSettings(settings, context({ environment: 'production' }))
        .filter((p) => p.severity === 'warning')
        .map((w) => w.key);
    expect(warnings()).to.have.members(['ProjectTemplate:Session:Store']);
    settings.Session.Store = 'Redis';
    settings.Session.Redis.Url = 'redis://cache:6379';
    expect(warnings()).to.deep.equal([]);
  });

  it('requires MaxSessions, MaxPendingSignIns, MaxReplayRecords and PendingSignInsPerClient to be whole numbers of at least 1', () => {
    for (const name of ['MaxSessions', 'MaxPendingSignIns', 'MaxReplayRecords', 'PendingSignInsPerClient'] as const) {
      for (const value of [0, 1.5, -3]) {
        const settings = withSettings((s) => (s.Session[name] = value));
        expect(errorKeys(checkSettings(settings, context())), `${name} ${value}`).to.deep.equal([
          `ProjectTemplate:Session:${name}`,
        ]);
      }
    }
  });

  it('requires ClientIpv6PrefixLength to be a whole number from 32 to 128', () => {
    for (const value of [31, 129, 64.5, 0, -64]) {
      const settings = withSettings((s) => (s.Session.ClientIpv6PrefixLength = value));
      expect(errorKeys(checkSettings(settings, context())), String(value)).to.deep.equal([
        'ProjectTemplate:Session:ClientIpv6PrefixLength',
      ]);
    }
    for (const value of [32, 48, 56, 64, 128]) {
      const settings = withSettings((s) => (s.Session.ClientIpv6PrefixLength = value));
      expect(errorKeys(checkSettings(settings, context())), String(value)).to.deep.equal([]);
    }
  });

  it('requires a Redis URL when the Redis store is chosen', () => {
    const settings = withSettings((s) => (s.Session.Store = 'Redis'));
    expect(errorKeys(checkSettings(settings, context()))).to.deep.equal(['ProjectTemplate:Session:Redis:Url']);
  });

  describe('unknown keys', () => {
    const check = (path: string[], siblings: string[], change: (s: ProjectTemplateSettings) => void = () => {}) =>
      checkSettings(withSettings(change), context({ unknownKeys: [{ path, siblings }] }));

    it('warns with the nearest known key', () => {
      const [problem] = check(['Authentication', 'Provider'], ['Enabled', 'Providers', 'DefaultScheme']);
      expect(problem).to.include({ severity: 'warning', key: 'ProjectTemplate:Authentication:Provider' });
      expect(problem?.message).to.contain('did you mean ProjectTemplate:Authentication:Providers?');
    });

    it('fails startup for a typo under an enabled provider', () => {
      const [problem] = check(
        ['Authentication', 'Providers', 'OpenIdConnect', 'ClientSecert'],
        ['ClientSecret', 'ClientId'],
        enableOidc,
      ).filter((p) => p.key.endsWith('ClientSecert'));
      expect(problem?.severity).to.equal('error');
      expect(problem?.message).to.contain('ClientSecret');
    });

    it('fails startup for a mistyped Enabled, which would silently leave a provider off', () => {
      const [problem] = check(['Authentication', 'Providers', 'Social1', 'Enable'], ['Enabled', 'Scheme']);
      expect(problem).to.include({ severity: 'error' });
    });

    it('fails startup for a misspelled provider name', () => {
      const [problem] = check(['Authentication', 'Providers', 'OpenIdConect'], ['OpenIdConnect', 'Saml2']);
      expect(problem).to.include({ severity: 'error' });
      expect(problem?.message).to.contain('OpenIdConnect');
    });
  });
});
