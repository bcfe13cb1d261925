import type { ProjectTemplateSettings, SocialSettings } from './settings.js';

/**
 * Built-in defaults: the lowest configuration source. They are the documented
 * defaults and starter values: cookie authentication on, every provider off, and
 * every routed endpoint closed unless it says otherwise.
 */
export function defaultSettings(): ProjectTemplateSettings {
  return {
    Authentication: {
      Enabled: true,
      DefaultScheme: 'Cookies',
      DefaultChallengeScheme: 'Cookies',
      DefaultSignInScheme: 'Cookies',
      HttpTimeoutSeconds: 10,
      Providers: {
        OpenIdConnect: {
          Enabled: false,
          Scheme: 'OpenIdConnect',
          DisplayName: 'OpenID Connect',
          Authority: '<authority_url>',
          ClientId: '',
          ClientSecret: '',
          CallbackPath: '/signin-oidc',
          ResponseType: 'code',
          ResponseMode: 'query',
          SaveTokens: true,
          Scopes: ['openid', 'profile', 'email'],
          SignOutAtProvider: true,
        },
        Saml2: {
          Enabled: false,
          Scheme: 'Saml2',
          DisplayName: 'SAML2',
          EntityId: '<entity_id_url>',
          MetadataUrl: '<idp_metadata_url>',
          ModulePath: '/Saml2/Acs',
          LoadMetadata: true,
          RequireSignedAssertions: true,
          ValidateCertificates: true,
        },
        Social1: social('Social1', '/signin-social1', []),
        Social2: social('Social2', '/signin-social2', ['profile', 'email']),
        Social3: { ...social('Social3', '/signin-social3', ['profile', 'email']), UserEmailsEndpoint: '' },
      },
      ClaimsTransformation: { RemoveOriginalClaims: false, Mappings: {} },
    },
    Authorization: {
      RequireAuthenticatedUserByDefault: true,
      RoleClaimType: 'application:role',
      PermissionClaimType: 'application:permission',
      AdministratorRoles: ['Administrator'],
      ManageApplicationPermissions: ['application.manage'],
    },
    Hosting: { PublicOrigin: '', TrustProxy: false, ShutdownDrainSeconds: 5 },
    Session: {
      Store: 'Memory',
      Redis: { Url: '', KeyPrefix: 'gatehouse:', CommandTimeoutMs: 1000 },
      CookieName: '',
      IdleTimeout: 20 * 60,
      AbsoluteLifetime: 8 * 60 * 60,
      MaxSessions: 100_000,
      MaxPendingSignIns: 10_000,
      PendingSignInsPerClient: 30,
      Keys: [],
    },
    Logging: { Level: 'info' },
  };
}

/** A social provider's defaults: no DisplayName (the vendor's name is shown) and the vendor's own endpoints. */
function social(scheme: string, callbackPath: string, scopes: string[]): SocialSettings {
  return {
    Enabled: false,
    Scheme: scheme,
    DisplayName: '',
    ClientId: '',
    ClientSecret: '',
    CallbackPath: callbackPath,
    Scopes: scopes,
    SaveTokens: false,
    AuthorizationEndpoint: '',
    TokenEndpoint: '',
    UserInformationEndpoint: '',
  };
}
