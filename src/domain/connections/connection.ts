import type { ProviderDefinition } from '../providers/provider-definition.js';
import type { SettingsProblem } from '../settings/problem.js';
import type { ClaimMappings, ProviderCommonSettings } from '../settings/settings.js';

/**
 * The keys a connection (`ProjectTemplate:Authentication:Connections:<Name>`, or one file
 * of `ConnectionsDirectory`) has beyond its protocol's: the protocol's own section keys
 * (`Authority`, `ClientId` ... / `EntityId`, `MetadataUrl` ...) sit beside these, with
 * the meanings, defaults and rules of the deployment's own provider section.
 */
export interface ConnectionKeys {
  /** The provider kind: `OpenIdConnect` or `Saml2`. */
  Protocol: string;
  /** The organization's identifier: every sign-in through the connection carries it as `application:organization`. */
  Organization: string;
  DisplayName: string;
  /** The organization's e-mail domains (`example.com`, `*.example.com`): discovery, and the domain guard. */
  Domains: string[];
  Enabled: boolean;
  /** List the connection as a button on the login page (a deployment with many customers lists none). */
  ShowOnLoginPage: boolean;
  /** Let `Domains` hold a consumer mail domain (gmail.com ...): off, because such a domain is anyone's. */
  AllowConsumerDomains: boolean;
  /** Pass the address typed at discovery on (OpenID Connect `login_hint`, SAML AuthnRequest Subject). */
  SendLoginHint: boolean;
  /** The connection's own claim mappings, added to (or overriding) its protocol's built-in table. */
  ClaimMappings: ClaimMappings;
  /**
   * The provider's role or group value -> an organization role (`application:organization_role`).
   * The only way anything the provider sends becomes a role: nothing by default.
   */
  RoleMappings: ClaimMappings;
  /** The provider's role, group or permission value -> an organization permission (`application:organization_permission`). */
  PermissionMappings: ClaimMappings;
  /**
   * Let this connection's provider grant the deployment's own roles and permissions (a
   * deployment's staff signing in through a connection of its own). Only the deployment's
   * configuration can say it: a file of the watched folder that sets it is refused.
   */
  GrantsDeploymentRoles: boolean;
  /**
   * False while a connection is being set up (the setup portal writes it so): it routes
   * nobody and starts no sign-in but the portal's test sign-in, until its organization's
   * admin activates it after a test passed. True by default: a file or a section is live.
   */
  Activated: boolean;
}

export const CONNECTION_KEY_KINDS = {
  Protocol: 'string',
  Organization: 'string',
  DisplayName: 'string',
  Domains: 'strings',
  Enabled: 'boolean',
  ShowOnLoginPage: 'boolean',
  AllowConsumerDomains: 'boolean',
  SendLoginHint: 'boolean',
  ClaimMappings: 'mappings',
  RoleMappings: 'mappings',
  PermissionMappings: 'mappings',
  GrantsDeploymentRoles: 'boolean',
  Activated: 'boolean',
} as const satisfies Record<keyof ConnectionKeys, string>;

export const CONNECTION_KEY_DEFAULTS: Omit<ConnectionKeys, 'Protocol' | 'Organization' | 'Domains'> = {
  DisplayName: '',
  Enabled: true,
  ShowOnLoginPage: false,
  AllowConsumerDomains: false,
  SendLoginHint: true,
  ClaimMappings: {},
  RoleMappings: {},
  PermissionMappings: {},
  GrantsDeploymentRoles: false,
  Activated: true,
};

/** A connection as a directory declares it: its name, where it came from, the keys it sets (typed), and reading problems. */
export interface ConnectionDeclaration {
  name: string;
  /**
   * How problems name its keys: `ProjectTemplate:Authentication:Connections:Acme` for the
   * configuration, the file's path for a file of the folder.
   */
  origin: string;
  /** The keys the declaration sets, typed by the configuration schema; unset keys are absent. */
  section: Readonly<Record<string, unknown>>;
  /** What reading found wrong already (not JSON, a wrong type, an unknown key, an unreadable secret file). */
  problems: readonly SettingsProblem[];
  /**
   * True only for a connection of the deployment's configuration, which the operator alone
   * writes; a folder's file (a provisioning job or a customer may fill it) is never trusted
   * to let a connection grant the deployment's roles.
   */
  fromConfiguration?: boolean;
  /**
   * Present only for a connection the administration API manages (the catalog): the
   * normalized `Domains` entries whose owner proved them through DNS. Its other domains
   * route nobody until proved. Absent, every domain is the operator's word and routes.
   */
  verifiedDomains?: readonly string[];
}

/**
 * One connection whose every rule passed: an identity provider of one organization,
 * routed under its own paths and keyed by its name everywhere (flow records, sessions,
 * replay caches, the audit trail).
 */
export interface Connection {
  /** As declared; the scheme `/External/Challenge?provider=` takes and the key its records carry. */
  readonly name: string;
  /** The name in lower case: names compare case-insensitively. */
  readonly id: string;
  readonly protocol: ProviderDefinition;
  readonly organization: string;
  readonly displayName: string;
  /** Normalized `Domains` entries that route: the operator's, or proved through DNS. */
  readonly domains: readonly string[];
  /**
   * Normalized `Domains` entries of a catalog-managed connection not proved yet: discovery
   * ignores them, no other connection is kept from them, and a sign-in for one is refused
   * `idp.domain_not_verified`.
   */
  readonly pendingDomains: readonly string[];
  /** Written through the administration API (the catalog): the API may change it; the operator's it may not. */
  readonly managed: boolean;
  /** `Activated`: false while it is set up; it then routes nobody and starts only the setup portal's test sign-ins. */
  readonly activated: boolean;
  readonly showOnLoginPage: boolean;
  readonly sendLoginHint: boolean;
  readonly claimMappings: Readonly<ClaimMappings>;
  /** The provider's value -> organization role (`RoleMappings`). */
  readonly roleMappings: Readonly<ClaimMappings>;
  /** The provider's value -> organization permission (`PermissionMappings`). */
  readonly permissionMappings: Readonly<ClaimMappings>;
  /** Its provider's roles and permissions are the deployment's (configuration only). */
  readonly grantsDeploymentRoles: boolean;
  /** The protocol's section: its defaults, the keys set, the paths derived from the name, `Scheme` the name. */
  readonly settings: ProviderCommonSettings;
  /** The identity provider as declared (OpenID Connect issuer, SAML entity ID or metadata URL): one connection each. */
  readonly issuer: string;
  /** The key `issuer` was read from (`Authority`, `IdpEntityId`, `MetadataUrl`), for messages. */
  readonly issuerSetting: string;
  /** Where it came from, for messages. */
  readonly origin: string;
  /** Equal for two declarations that mean the same: a file rewritten unchanged replaces nothing. */
  readonly fingerprint: string;
}

/** Every path of a connection starts here: `/connections/<name in lower case>`. */
export const CONNECTIONS_PATH_PREFIX = '/connections/';

export function connectionBasePath(name: string): string {
  return `${CONNECTIONS_PATH_PREFIX}${name.toLowerCase()}`;
}

/** The connection name a path under `/connections/` names, in lower case; undefined for any other path. */
export function connectionIdInPath(path: string): string | undefined {
  if (path.length <= CONNECTIONS_PATH_PREFIX.length) return undefined;
  if (path.slice(0, CONNECTIONS_PATH_PREFIX.length).toLowerCase() !== CONNECTIONS_PATH_PREFIX) return undefined;
  const rest = path.slice(CONNECTIONS_PATH_PREFIX.length);
  const end = rest.indexOf('/');
  return (end === -1 ? rest : rest.slice(0, end)).toLowerCase();
}

/** Letters, digits and `-`, starting with a letter, at most 63 characters (it sits in a path segment). */
export function isConnectionName(name: string): boolean {
  return /^[A-Za-z][A-Za-z0-9-]{0,62}$/.test(name);
}
