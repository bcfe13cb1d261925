import {
  DEFAULT_MISSES_BEFORE_UNVERIFIED,
  DEFAULT_RECORD_NAME_PREFIX,
  DEFAULT_RECORD_VALUE_PREFIX,
} from '../connections/domain-verification.js';
import type { ProviderDefinition } from '../providers/provider-definition.js';
import type { ProjectTemplateSettings } from './settings.js';

/**
 * Built-in defaults: the lowest configuration source. They are the documented
 * defaults and starter values: cookie authentication on, every provider off, and
 * every routed endpoint closed unless it says otherwise.
 */
export function defaultSettings(providers: readonly ProviderDefinition[]): ProjectTemplateSettings {
  return {
    Authentication: {
      Enabled: true,
      DefaultScheme: 'Cookies',
      DefaultChallengeScheme: 'Cookies',
      DefaultSignInScheme: 'Cookies',
      HttpTimeoutSeconds: 10,
      // Each provider's own defaults, in the order of its declaration: every one disabled.
      Providers: Object.fromEntries(providers.map((provider) => [provider.key, structuredClone(provider.defaults)])),
      Connections: {},
      ConnectionsDirectory: '',
      ConnectionSecretsDirectory: '',
      ClaimsTransformation: { RemoveOriginalClaims: false, Mappings: {} },
      AuthnContextClassMethods: {},
    },
    Authorization: {
      RequireAuthenticatedUserByDefault: true,
      RoleClaimType: 'application:role',
      PermissionClaimType: 'application:permission',
      AdministratorRoles: ['Administrator'],
      ManageApplicationPermissions: ['application.manage'],
      StepUp: {},
    },
    Hosting: { PublicOrigin: '', TrustProxy: false, ShutdownDrainSeconds: 5 },
    Session: {
      Store: 'Memory',
      Redis: {
        Mode: 'Standalone',
        Url: '',
        Nodes: [],
        SentinelMasterName: '',
        SentinelPassword: '',
        Username: '',
        Password: '',
        Tls: false,
        WaitForReplica: true,
        KeyPrefix: 'gatehouse:',
        CommandTimeoutMs: 1000,
      },
      CookieName: '',
      IdleTimeout: 20 * 60,
      AbsoluteLifetime: 8 * 60 * 60,
      MaxSessions: 100_000,
      MaxPendingSignIns: 10_000,
      MaxReplayRecords: 100_000,
      PendingSignInsPerClient: 30,
      ClientIpv6PrefixLength: 64,
      Keys: [],
    },
    Logging: { Level: 'info' },
    Telemetry: { Enabled: false, Metrics: true, Traces: true, PrometheusPort: -1, PrometheusHost: '127.0.0.1' },
    Database: { ConnectionString: '', Migrate: true },
    Administration: {
      Enabled: false,
      ManagePermission: 'connections.manage',
      ApiKeys: [],
      EncryptionKeys: [],
      AllowPrivateNetworks: false,
      DnsServers: [],
      DomainRecordPrefix: DEFAULT_RECORD_NAME_PREFIX,
      DomainValuePrefix: DEFAULT_RECORD_VALUE_PREFIX,
      DomainRecheckSeconds: 86_400,
      DomainMissesBeforeUnverified: DEFAULT_MISSES_BEFORE_UNVERIFIED,
    },
    Directory: {
      Enabled: false,
      RequestsPerMinute: 1_200,
      FailedAuthenticationsPerMinute: 20,
      MaxBodyBytes: 2_000_000,
      EmbeddedFile: 'data/directory.sqlite',
      EmbeddedSearchMsPerMinute: 3_000,
      ChangeRetentionDays: 30,
    },
  };
}
