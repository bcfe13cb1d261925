import { CONNECTIONS_PATH_PREFIX, connectionIdInPath, type Connection } from '../domain/connections/connection.js';
import type { OrganizationBinding } from '../domain/connections/organization-guard.js';
import { callbackPathOf } from '../domain/providers/provider-definition.js';
import type { ProviderKey } from '../domain/settings/settings.js';
import type { ConnectionAdapters, ConnectionStatus } from './connections/connection-adapters.js';
import type { IdentityProvider, IdentityProviderInfo, LogoutEndpoint } from './ports/identity-provider.js';

/**
 * Where a request to a provider-owned path goes, and the route it is counted under: the
 * path as configured (`/signin-oidc`), or a connection's as a template
 * (`/connections/:name/signin-oidc`), never the path as the request spelled it. Paths
 * match in any letter case and connections are many: a label taken from the request
 * would let anyone make metric series at will.
 */
export type ProviderPath =
  | { provider: IdentityProvider; at: 'callback'; route: string }
  /** One of its logout endpoints (one per channel). */
  | { provider: IdentityProvider; at: 'logout'; endpoint: LogoutEndpoint; route: string }
  /** A path under `/connections/<name>/` of no connection in force (removed, say): refused plainly. */
  | { provider: undefined; at: 'unknown_connection' };

/**
 * Every identity provider of the instance, found the ways the house asks for one: by the
 * scheme a challenge names, by the key its records carry, by the path its messages arrive
 * at, and (connections only) by e-mail domain. The deployment's own providers
 * (`Authentication:Providers`) are built at start; the connections' adapters on first use
 * (ConnectionAdapters). Names and schemes never collide between the two (the connection
 * rules reserve the built-in ones).
 */
export class IdentityProviders {
  readonly #byScheme: ReadonlyMap<string, IdentityProvider>;
  readonly #byKey: ReadonlyMap<string, IdentityProvider>;
  readonly #byPath: ReadonlyMap<string, ProviderPath>;

  constructor(
    /** The deployment's own providers, in the login page's order. */
    readonly builtIn: readonly IdentityProvider[],
    private readonly connections?: ConnectionAdapters,
  ) {
    this.#byScheme = new Map(builtIn.map((provider) => [provider.info.scheme, provider]));
    this.#byKey = new Map(builtIn.map((provider) => [provider.info.key, provider]));
    const byPath = new Map<string, ProviderPath>();
    for (const provider of builtIn) {
      const callbackPath = provider.info.callbackPath;
      byPath.set(callbackPath.toLowerCase(), { provider, at: 'callback', route: callbackPath });
      for (const endpoint of provider.logoutEndpoints ?? []) {
        byPath.set(endpoint.path.toLowerCase(), { provider, at: 'logout', endpoint, route: endpoint.path });
      }
    }
    this.#byPath = byPath;
  }

  /** True when no provider can ever own a path (nothing enabled, no connection directory): requests skip the lookups. */
  get none(): boolean {
    return this.builtIn.length === 0 && this.connections === undefined;
  }

  /** The provider a challenge names: a built-in scheme (exact), else a connection name (any letter case). */
  async byScheme(scheme: string): Promise<IdentityProvider | undefined> {
    return this.#byScheme.get(scheme) ?? (await this.connections?.adapterOf(scheme));
  }

  /** The provider whose key a record carries (a built-in provider's key, a connection's name). */
  async byKey(key: ProviderKey): Promise<IdentityProvider | undefined> {
    return this.#byKey.get(key) ?? (await this.connections?.adapterOf(key));
  }

  /**
   * The deployment's own provider owning a callback or logout path, if any: a map read,
   * made on every request (no promise, no allocation).
   */
  builtInAt(path: string): ProviderPath | undefined {
    return this.#byPath.size === 0 ? undefined : this.#byPath.get(path.toLowerCase());
  }

  /** True when the path is a connection's (under `/connections/`) and connections exist here: then ask `connectionAt`. */
  isConnectionPath(path: string): boolean {
    return this.connections !== undefined && connectionIdInPath(path) !== undefined;
  }

  /** The connection owning a path under `/connections/<name>/`, building its adapter on first use. */
  async connectionAt(path: string): Promise<ProviderPath | undefined> {
    const id = connectionIdInPath(path);
    if (id === undefined || !this.connections) return undefined;
    const adapter = this.connections.adapterOf(id);
    if (!adapter) return { provider: undefined, at: 'unknown_connection' };
    const provider = await adapter;
    const lower = path.toLowerCase();
    const callbackPath = provider.info.callbackPath;
    if (callbackPath.toLowerCase() === lower) return { provider, at: 'callback', route: connectionRoute(callbackPath) };
    const endpoint = provider.logoutEndpoints?.find((candidate) => candidate.path.toLowerCase() === lower);
    return endpoint ? { provider, at: 'logout', endpoint, route: connectionRoute(endpoint.path) } : undefined;
  }

  /** What the login page lists: the deployment's own providers, then the connections shown there. */
  listed(): IdentityProviderInfo[] {
    const shown = this.connections?.registry.listedOnLoginPage() ?? [];
    return [...this.builtIn.map((provider) => provider.info), ...shown.map(connectionInfo)];
  }

  /**
   * The name to show for a provider known by its key or scheme (a connection's are its
   * name): its display name, whether or not its adapter was built; undefined when none.
   */
  displayNameOf(keyOrScheme: string): string | undefined {
    const builtIn = this.#byKey.get(keyOrScheme) ?? this.#byScheme.get(keyOrScheme);
    return builtIn?.info.displayName ?? this.connections?.registry.byName(keyOrScheme)?.displayName;
  }

  /** The connections' states for readiness (ConnectionAdapters.report); undefined where connections are off. */
  connectionReport(): Promise<Record<string, ConnectionStatus>> | undefined {
    return this.connections?.report();
  }

  /** Whether connections exist at all here (the login page then offers the e-mail form). */
  get hasConnections(): boolean {
    return this.connections !== undefined;
  }

  /** The activated connection holding a normalized e-mail domain (one still being set up routes nobody). */
  connectionForDomain(domain: string): Connection | undefined {
    const connection = this.connections?.registry.byDomain(domain);
    return connection?.activated === false ? undefined : connection;
  }

  /** The connection named `name`, whether or not it is activated: the setup portal's test sign-in. */
  connectionNamed(name: string): Connection | undefined {
    return this.connections?.registry.byName(name);
  }

  /** A connection's own claim mappings (its `ClaimMappings`), added to its protocol's table. */
  claimMappingsOf(key: ProviderKey): Readonly<Record<string, string>> | undefined {
    return this.connections?.registry.byName(key)?.claimMappings;
  }

  /**
   * True while the connection that signed someone in is in force for the same
   * organization (and, for a sign-in that holds the deployment's roles, still allowed to grant
   * them): a session of a removed connection (or one moved to another organization)
   * is anonymous at its next request, on every instance, whether or not its ending has run.
   */
  holds(connection: { name: string; organization: string; grantsDeploymentRoles?: boolean }): boolean {
    const current = this.connections?.registry.byName(connection.name);
    // A sign-in that held the deployment's roles lasts only while the configuration still lets its connection grant them.
    if (connection.grantsDeploymentRoles === true && current?.grantsDeploymentRoles !== true) return false;
    return current?.organization === connection.organization;
  }

  /** The organization a provider signs people in for, when it is a connection. */
  organizationOf(key: ProviderKey): OrganizationBinding | undefined {
    if (this.#byKey.has(key)) return undefined;
    const connection = this.connections?.registry.byName(key);
    return connection && bindingOf(connection);
  }
}

/** The route of every connection's path: its protocol's own suffix after the name (`/connections/:name/saml2/acs`). */
export const CONNECTION_ROUTE_PREFIX = '/connections/:name';

/** A connection's configured path (derived from its name, read-connection.ts) as its route template. */
function connectionRoute(configuredPath: string): string {
  const afterName = configuredPath.indexOf('/', CONNECTIONS_PATH_PREFIX.length);
  return afterName === -1 ? CONNECTION_ROUTE_PREFIX : CONNECTION_ROUTE_PREFIX + configuredPath.slice(afterName);
}

export function bindingOf(connection: Connection): OrganizationBinding {
  return {
    connection: connection.name,
    organization: connection.organization,
    domains: connection.domains,
    pendingDomains: connection.pendingDomains,
    roleMappings: connection.roleMappings,
    permissionMappings: connection.permissionMappings,
    grantsDeploymentRoles: connection.grantsDeploymentRoles,
  };
}

/** How a connection is listed and routed, without building its adapter. */
export function connectionInfo(connection: Connection): IdentityProviderInfo {
  return {
    key: connection.name,
    kind: connection.protocol.key,
    scheme: connection.name,
    displayName: connection.displayName,
    callbackPath: callbackPathOf(connection.protocol, connection.settings),
  };
}
