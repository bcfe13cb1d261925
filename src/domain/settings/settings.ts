/**
 * The typed `ProjectTemplate` configuration section. Key names are exactly those of
 * the documented rules (docs/authentication-and-authorization.md); keys they do not name (Hosting, Session, Logging and a
 * few provider options) are Gatehouse's own and documented in the README.
 */
export interface ProviderCommonSettings {
  Enabled: boolean;
  Scheme: string;
  DisplayName: string;
}

export interface OpenIdConnectSettings extends ProviderCommonSettings {
  Authority: string;
  ClientId: string;
  ClientSecret: string;
  CallbackPath: string;
  ResponseType: string;
  /** How the provider returns its answer: `query` (a redirect) or `form_post` (a form its page POSTs). */
  ResponseMode: 'query' | 'form_post';
  SaveTokens: boolean;
  Scopes: string[];
  /** End the provider session too on logout (RP-initiated logout) when the provider supports it. */
  SignOutAtProvider: boolean;
}

export interface Saml2Settings extends ProviderCommonSettings {
  EntityId: string;
  MetadataUrl: string;
  ModulePath: string;
  LoadMetadata: boolean;
  RequireSignedAssertions: boolean;
  ValidateCertificates: boolean;
}

/**
 * A social provider: one vendor's OAuth 2.0 sign-in (Social1 Microsoft, Social2 Amazon,
 * Social3 GitHub). An empty `DisplayName` shows the vendor's name; an empty endpoint
 * override means the vendor's production endpoint.
 */
export interface SocialSettings extends ProviderCommonSettings {
  ClientId: string;
  ClientSecret: string;
  CallbackPath: string;
  /** Generic names (`profile`, `email`) are translated to the vendor's scopes; others pass verbatim. */
  Scopes: string[];
  /** Keep the vendor's tokens server-side after sign-in (Gatehouse's own key; default false: they are dropped). */
  SaveTokens: boolean;
  AuthorizationEndpoint: string;
  TokenEndpoint: string;
  UserInformationEndpoint: string;
}

/** Social3 (GitHub) reads the verified email from an endpoint of its own. */
export interface Social3Settings extends SocialSettings {
  UserEmailsEndpoint: string;
}

export interface ProvidersSettings {
  OpenIdConnect: OpenIdConnectSettings;
  Saml2: Saml2Settings;
  Social1: SocialSettings;
  Social2: SocialSettings;
  Social3: Social3Settings;
}

export type ProviderKey = keyof ProvidersSettings;
export const providerKeys: readonly ProviderKey[] = ['OpenIdConnect', 'Saml2', 'Social1', 'Social2', 'Social3'];

/** Claim mappings: provider claim name -> application claim type. */
export type ClaimMappings = Record<string, string>;

export interface ClaimsTransformationSettings {
  RemoveOriginalClaims: boolean;
  /** Per provider key, extra mappings added to (or overriding) the built-in tables. */
  Mappings: Partial<Record<ProviderKey, ClaimMappings>>;
}

export interface AuthenticationSettings {
  Enabled: boolean;
  DefaultScheme: string;
  DefaultChallengeScheme: string;
  DefaultSignInScheme: string;
  /** Time-out of every outbound call to an identity provider, in seconds. */
  HttpTimeoutSeconds: number;
  Providers: ProvidersSettings;
  ClaimsTransformation: ClaimsTransformationSettings;
}

export interface AuthorizationSettings {
  RequireAuthenticatedUserByDefault: boolean;
  RoleClaimType: string;
  PermissionClaimType: string;
  AdministratorRoles: string[];
  ManageApplicationPermissions: string[];
}

export interface HostingSettings {
  /** Origin the application is reached at (`https://app.example.com`); absolute URLs are built from it. */
  PublicOrigin: string;
  /** Trust `X-Forwarded-*` headers (only behind a known reverse proxy). */
  TrustProxy: boolean;
  /** Seconds to keep serving after SIGTERM while the load balancer notices `ready` is 503. */
  ShutdownDrainSeconds: number;
}

export type SessionStoreKind = 'Memory' | 'Redis';

export interface SessionSettings {
  Store: SessionStoreKind;
  Redis: { Url: string; KeyPrefix: string; CommandTimeoutMs: number };
  /** Empty means `gatehouse.sid`, or `__Host-gatehouse.sid` in production. */
  CookieName: string;
  /** Seconds without a request after which a session ends (sliding). */
  IdleTimeout: number;
  /** Seconds after sign-in after which a session ends, however active. */
  AbsoluteLifetime: number;
  /** Memory store only: signed-in records kept before the least recently used is evicted. */
  MaxSessions: number;
  /** Memory store only: pending sign-ins (and per-client counts) kept, apart from signed-in sessions. */
  MaxPendingSignIns: number;
  /** Sign-ins one client address may start per flow lifetime (15 minutes); past it, 429. */
  PendingSignInsPerClient: number;
  /** Cookie signing keys; empty means unsigned (the cookie is an unguessable 256-bit token). */
  Keys: string[];
}

export interface LoggingSettings {
  Level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

export interface ProjectTemplateSettings {
  Authentication: AuthenticationSettings;
  Authorization: AuthorizationSettings;
  Hosting: HostingSettings;
  Session: SessionSettings;
  Logging: LoggingSettings;
}

/** The environment the process runs in, from NODE_ENV. */
export type Environment = 'development' | 'test' | 'production';
