/**
 * The typed `ProjectTemplate` configuration section. Key names are exactly those of
 * the documented rules (docs/authentication-and-authorization.md); keys they do not name (Hosting, Session, Logging and a
 * few provider options) are Gatehouse's own and documented in docs/configuration.md. Each provider's
 * own keys are declared by its definition.
 */
export interface ProviderCommonSettings {
  Enabled: boolean;
  Scheme: string;
  DisplayName: string;
}

/**
 * Every provider's section, by its key under `Authentication:Providers`. What a section
 * holds beyond the common keys is declared by its provider's definition
 * (src/domain/providers/provider-definition.ts), not here: no layer spells out the list of
 * providers.
 */
export type ProvidersSettings = Readonly<Record<string, ProviderCommonSettings>>;

/** A provider's key under `Authentication:Providers`: `OpenIdConnect`, `Saml2`, `Social1` ... */
export type ProviderKey = string;

/** Claim mappings: provider claim name -> application claim type. */
export type ClaimMappings = Record<string, string>;

export interface ClaimsTransformationSettings {
  RemoveOriginalClaims: boolean;
  /** Per provider key, extra mappings added to (or overriding) the built-in tables. */
  Mappings: Readonly<Record<ProviderKey, ClaimMappings>>;
}

export interface AuthenticationSettings {
  Enabled: boolean;
  DefaultScheme: string;
  DefaultChallengeScheme: string;
  DefaultSignInScheme: string;
  /** Time-out of every outbound call to an identity provider, in seconds. */
  HttpTimeoutSeconds: number;
  Providers: ProvidersSettings;
  /**
   * Connections declared in the configuration, by name: each one organization's OpenID
   * Connect or SAML2 identity provider (src/domain/connections/connection.ts). Typed by the
   * schema; their rules are the connection rules, not the provider sections'.
   */
  Connections: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** A folder of connection files (`<Name>.json`), watched while the process runs; empty: none. */
  ConnectionsDirectory: string;
  /** A folder the connection files' `<Key>File` keys may also name (a mounted Secret); empty: only the connections folder. */
  ConnectionSecretsDirectory: string;
  ClaimsTransformation: ClaimsTransformationSettings;
  /**
   * SAML `AuthnContextClassRef` -> the `amr` values it stands for (space-separated), added
   * to or replacing the built-in table (src/domain/claims/authn-context-methods.ts).
   */
  AuthnContextClassMethods: Readonly<Record<string, string>>;
}

export interface AuthorizationSettings {
  RequireAuthenticatedUserByDefault: boolean;
  RoleClaimType: string;
  PermissionClaimType: string;
  AdministratorRoles: string[];
  ManageApplicationPermissions: string[];
  /** `StepUp:<label>` (with `Policy`) or `StepUp:<policy name>`: what a named policy asks of the sign-in itself (docs/step-up.md). */
  StepUp: Readonly<Record<string, StepUpSettings>>;
}

/** One `Authorization:StepUp:<label>` section; an absent key asks nothing. */
export interface StepUpSettings {
  /** The policy's name; absent, the section's own name is (a name with a dot cannot be an environment variable's). */
  Policy?: string;
  MaxAuthenticationAgeSeconds?: number;
  AuthenticationMethods?: string[];
  AuthenticationContextClasses?: string[];
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

/** One server, a Redis Cluster, or a primary and its replicas watched by Sentinel. */
export type RedisMode = 'Standalone' | 'Cluster' | 'Sentinel';

export interface RedisSettings {
  Mode: RedisMode;
  /** Standalone only: `redis://[user:password@]host:port[/db]` or `rediss://...`. A secret. */
  Url: string;
  /** `host:port` each: Cluster, the seed nodes; Sentinel, the sentinels. */
  Nodes: string[];
  /** Sentinel only: the name the sentinels monitor the primary under. */
  SentinelMasterName: string;
  /** Sentinel only, optional: the sentinels' own password. A secret. */
  SentinelPassword: string;
  /** ACL user of the data nodes (empty: the default user). In Standalone mode the URL may carry it instead. */
  Username: string;
  /** Password of the data nodes. A secret. In Standalone mode the URL may carry it instead. */
  Password: string;
  /** TLS to every node (and sentinel). In Standalone mode a `rediss://` URL says the same. */
  Tls: boolean;
  /**
   * Cluster and Sentinel: the writes a sign-in, a logout and a single-use record rest on
   * succeed only once a replica has them (WAIT), so that a failover cannot undo them.
   */
  WaitForReplica: boolean;
  KeyPrefix: string;
  CommandTimeoutMs: number;
}

export interface SessionSettings {
  Store: SessionStoreKind;
  Redis: RedisSettings;
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
  /** Memory store only: replay records (used messages, ended provider sessions) kept; past it, what needs one is refused. */
  MaxReplayRecords: number;
  /** Sign-ins one client address may start per flow lifetime (15 minutes); past it, 429. */
  PendingSignInsPerClient: number;
  /** An IPv6 client is counted by its first this many bits (its network, a /64 by default); an IPv4 client by its address. */
  ClientIpv6PrefixLength: number;
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
  Telemetry: TelemetrySettings;
  Database: DatabaseSettings;
  Administration: AdministrationSettings;
  Directory: DirectorySettings;
}

/** The PostgreSQL database of the connection catalog (docs/connections.md, Running on PostgreSQL). */
export interface DatabaseSettings {
  /** A libpq URL (`postgresql://user:password@host/db`); empty: no database. `DATABASE_URL` is read when this is not set. */
  ConnectionString: string;
  /** Run the catalog's pending migrations at start (under a lock); off for teams that migrate in their pipeline (`npm run db:migrate`). */
  Migrate: boolean;
}

/** The administration API (`/api/admin/`): connections managed while the application runs (docs/connections.md). */
export interface AdministrationSettings {
  /** Serve the administration API. Off by default. */
  Enabled: boolean;
  /** The permission (in `Authorization:PermissionClaimType`) the `ManageConnections` policy asks of signed-in staff. */
  ManagePermission: string;
  /** Lowercase hex SHA-256 of each API key a provisioning job may present (`Authorization: Bearer <key>`): `npm run admin:new-api-key` prints one. */
  ApiKeys: string[];
  /** Base64 of 32 random bytes each: the first seals the secrets the API stores, every one opens them (`npm run connections:new-key`). */
  EncryptionKeys: string[];
  /** Let the pre-flight fetch from loopback, private, link-local and cloud-metadata addresses (the demo and tests only). */
  AllowPrivateNetworks: boolean;
  /** `host:port` DNS servers the domain checks ask; empty: the system's resolver. */
  DnsServers: string[];
  /** The first label of a domain's TXT record name: `<prefix>.<domain>`. */
  DomainRecordPrefix: string;
  /** What the TXT record's value starts with, before the token. */
  DomainValuePrefix: string;
  /** Seconds between two checks of a verified domain's record. */
  DomainRecheckSeconds: number;
  /** Re-checks in a row that miss the record before the domain is un-verified. */
  DomainMissesBeforeUnverified: number;
}

/** Directory sync: organizations' identity providers push their people and groups over SCIM 2.0 (docs/directory-sync.md). */
export interface DirectorySettings {
  /** Serve `/scim/v2/{organization}/` and the tokens' administration endpoints. Off by default; needs the administration API. */
  Enabled: boolean;
  /** SCIM requests one token may make per minute before 429. */
  RequestsPerMinute: number;
  /** Refused SCIM credentials one client (an IPv6 client by its network) may present per minute; past it, 429 before any token is looked up. */
  FailedAuthenticationsPerMinute: number;
  /** The largest request body read, in bytes (413 beyond, before any parsing). */
  MaxBodyBytes: number;
  /**
   * The SQLite file of the embedded directory store, used when `Database:ConnectionString` is
   * empty (absolute, or relative to the project folder; made with its folder at start).
   */
  EmbeddedFile: string;
  /**
   * The embedded store's time one organization's slow searches (each 10 ms or more: a filter
   * no index serves) may take, in milliseconds a minute; past it, that organization's
   * searches answer 429 until its share refills. The store is synchronous: this bounds how
   * long one organization can hold every other's requests.
   */
  EmbeddedSearchMsPerMinute: number;
  /**
   * How long the feed of directory changes keeps a change, in days: older ones are removed
   * (hourly, by every instance). A subscriber must resume within it.
   */
  ChangeRetentionDays: number;
}

/** OpenTelemetry metrics and traces (docs/operations.md, Telemetry); the OTEL_* variables take part too (docs/configuration.md). */
export interface TelemetrySettings {
  /** On, even without an OTLP endpoint (the Prometheus listener alone). Off by default. */
  Enabled: boolean;
  /** Record and export metrics when telemetry is on. */
  Metrics: boolean;
  /** Record and export traces when telemetry is on. */
  Traces: boolean;
  /** The port of the Prometheus `/metrics` listener: -1 (default) none, 0 any free port, else that port. Never the application's. */
  PrometheusPort: number;
  /** The address the Prometheus listener binds: loopback by default. */
  PrometheusHost: string;
}

/** The environment the process runs in, from NODE_ENV. */
export type Environment = 'development' | 'test' | 'production';
