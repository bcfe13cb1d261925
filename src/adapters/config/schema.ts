import { CONNECTION_KEY_KINDS } from '../../domain/connections/connection.js';
import type { ProviderDefinition, SettingKind } from '../../domain/providers/provider-definition.js';

/**
 * The JSON schema of the `ProjectTemplate` section. It types every value (ajv coerces
 * "true"/"false" and numeric strings from environment variables) and it is the one
 * place that declares which keys are secret (`secret: true`): that declaration drives
 * both the startup messages and the log redaction.
 *
 * URL and cross-key rules live in the domain's startup rules, because they apply only
 * to enabled providers (disabled ones may keep placeholders).
 */
type Schema = Record<string, unknown>;

const string: Schema = { type: 'string' };
const secret: Schema = { type: 'string', secret: true };
const boolean: Schema = { type: 'boolean' };
const number: Schema = { type: 'number' };
const strings: Schema = { type: 'array', items: string };
const object = (properties: Record<string, Schema>): Schema => ({
  type: 'object',
  properties,
  additionalProperties: false,
});

const claimMappings: Schema = { type: 'object', additionalProperties: string };

/** The schema fragment of one key, from its provider's declaration. */
function kindSchema(kind: SettingKind): Schema {
  if (typeof kind !== 'string') return { type: 'string', enum: [...kind] };
  return { string, secret, boolean, number, strings }[kind];
}

/** One provider's section: exactly the keys its declaration types. */
function providerSchema(definition: ProviderDefinition): Schema {
  const kinds: Readonly<Record<string, SettingKind>> = definition.kinds;
  return object(Object.fromEntries(Object.entries(kinds).map(([name, kind]) => [name, kindSchema(kind)])));
}

/**
 * One connection's section: the connection's own keys, and the keys of every protocol a
 * connection can have (the connection rules refuse those of another protocol than its
 * own), each secret key also as `<Key>File`, a file holding the value (a mounted Secret).
 */
function connectionSchema(providers: readonly ProviderDefinition[]): Schema {
  const protocols = providers.filter((provider) => provider.instancePaths);
  const properties: Record<string, Schema> = {};
  for (const protocol of protocols) {
    const kinds: Readonly<Record<string, SettingKind>> = protocol.kinds;
    for (const [name, kind] of Object.entries(kinds)) {
      if (name === 'Scheme') continue;
      properties[name] = kindSchema(kind);
      if (kind === 'secret') properties[`${name}File`] = string;
    }
  }
  for (const [name, kind] of Object.entries(CONNECTION_KEY_KINDS)) {
    properties[name] = kind === 'mappings' ? claimMappings : kindSchema(kind);
  }
  properties.Protocol = { type: 'string', enum: protocols.map((protocol) => protocol.key) };
  return object(properties);
}

/** The schema of the section, with one `Providers` child per declared provider. */
export function projectTemplateSchema(providers: readonly ProviderDefinition[]): Schema {
  return object({
    Authentication: object({
      Enabled: boolean,
      DefaultScheme: string,
      DefaultChallengeScheme: string,
      DefaultSignInScheme: string,
      HttpTimeoutSeconds: number,
      Providers: object(Object.fromEntries(providers.map((provider) => [provider.key, providerSchema(provider)]))),
      Connections: { type: 'object', additionalProperties: connectionSchema(providers) },
      ConnectionsDirectory: string,
      ConnectionSecretsDirectory: string,
      ClaimsTransformation: object({
        RemoveOriginalClaims: boolean,
        Mappings: object(Object.fromEntries(providers.map((provider) => [provider.key, claimMappings]))),
      }),
      AuthnContextClassMethods: claimMappings,
    }),
    Authorization: object({
      RequireAuthenticatedUserByDefault: boolean,
      RoleClaimType: string,
      PermissionClaimType: string,
      AdministratorRoles: strings,
      ManageApplicationPermissions: strings,
      StepUp: {
        type: 'object',
        additionalProperties: object({
          Policy: string,
          MaxAuthenticationAgeSeconds: number,
          AuthenticationMethods: strings,
          AuthenticationContextClasses: strings,
        }),
      },
    }),
    Hosting: object({ PublicOrigin: string, TrustProxy: boolean, ShutdownDrainSeconds: number }),
    Session: object({
      Store: { type: 'string', enum: ['Memory', 'Redis'] },
      Redis: object({
        Mode: { type: 'string', enum: ['Standalone', 'Cluster', 'Sentinel'] },
        Url: secret,
        Nodes: strings,
        SentinelMasterName: string,
        SentinelPassword: secret,
        Username: string,
        Password: secret,
        Tls: boolean,
        WaitForReplica: boolean,
        KeyPrefix: string,
        CommandTimeoutMs: number,
      }),
      CookieName: string,
      IdleTimeout: number,
      AbsoluteLifetime: number,
      MaxSessions: number,
      MaxPendingSignIns: number,
      MaxReplayRecords: number,
      PendingSignInsPerClient: number,
      ClientIpv6PrefixLength: number,
      Keys: { type: 'array', items: secret, secret: true },
    }),
    Logging: object({
      Level: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    }),
    Telemetry: object({
      Enabled: boolean,
      Metrics: boolean,
      Traces: boolean,
      PrometheusPort: { type: 'integer', minimum: -1, maximum: 65535 },
      PrometheusHost: string,
    }),
    Database: object({ ConnectionString: secret, Migrate: boolean }),
    Administration: object({
      Enabled: boolean,
      ManagePermission: string,
      ApiKeys: strings,
      EncryptionKeys: { type: 'array', items: secret, secret: true },
      AllowPrivateNetworks: boolean,
      DnsServers: strings,
      DomainRecordPrefix: string,
      DomainValuePrefix: string,
      DomainRecheckSeconds: number,
      DomainMissesBeforeUnverified: number,
    }),
    Directory: object({
      Enabled: boolean,
      RequestsPerMinute: number,
      FailedAuthenticationsPerMinute: number,
      MaxBodyBytes: number,
      EmbeddedFile: string,
      EmbeddedSearchMsPerMinute: number,
      ChangeRetentionDays: number,
    }),
  });
}

/**
 * Paths (below ProjectTemplate) of every key the schema marks secret; `*` stands for any
 * name where the section is a map (`Connections:*:ClientSecret`).
 */
export function secretKeyPaths(schema: Schema, prefix: string[] = []): string[][] {
  if (schema.secret === true) return [prefix];
  const free = schema.additionalProperties;
  if (typeof free === 'object' && free !== null) return secretKeyPaths(free as Schema, [...prefix, '*']);
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (!properties) return [];
  return Object.entries(properties).flatMap(([name, child]) => secretKeyPaths(child, [...prefix, name]));
}
