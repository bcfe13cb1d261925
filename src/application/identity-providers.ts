import { connectionIdInPath, type Connection } from '../domain/connections/connection.js';
import type { OrganizationBinding } from '../domain/connections/organization-guard.js';
import { callbackPathOf } from '../domain/providers/provider-definition.js';
import type { ProviderKey } from '../domain/settings/settings.js';
import type { ConnectionAdapters, ConnectionStatus } from './connections/connection-adapters.js';
import type { IdentityProvider, IdentityProviderInfo, LogoutEndpoint } from './ports/identity-provider.js';

/** Where a request to a provider-owned path goes. */
export type ProviderPath =
  | { provider: IdentityProvider; at: 'callback' }
  /** One of its logout endpoints (one per channel). */
  | { provider: IdentityProvider; at: 'logout'; endpoint: LogoutEndpoint }
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
      byPath.set(provider.info.callbackPath.toLowerCase(), { provider, at: 'callback' });
      for (const endpoint of provider.logoutEndpoints ?? []) {
        byPath.set(endpoint.path.toLowerCase(), { provider, at: 'logout', endpoint });
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
    if (provider.info.callbackPath.toLowerCase() === lower) return { provider, at: 'callback' };
    const endpoint = provider.logoutEndpoints?.find((candidate) => candidate.path.toLowerCase() === lower);
    return endpoint ? { provider, at: 'logout', endpoint } : undefined;
  }

  /** What the login page lists: the deployment's own providers, then the connections shown there. */
  listed(): IdentityProviderInfo[] {
    const shown = [...(this.connections?.registry.all() ?? [])].filter((connection) => connection.showOnLoginPage);
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

  /** The connection holding a normalized e-mail domain. */
  connectionForDomain(domain: string): Connection | undefined {
    return this.connections?.registry.byDomain(domain);
  }

  /** A connection's own claim mappings (its `ClaimMappings`), added to its protocol's table. */
  claimMappingsOf(key: ProviderKey): Readonly<Record<string, string>> | undefined {
    return this.connections?.registry.byName(key)?.claimMappings;
  }

  /**
   * True while the connection that signed someone in is in force for the same
   * organization: a session of a removed connection (or one moved to another organization)
   * is anonymous at its next request, on every instance, whether or not its ending has run.
   */
  holds(connection: { name: string; organization: string }): boolean {
    return this.connections?.registry.byName(connection.name)?.organization === connection.organization;
  }

  /** The organization a provider signs people in for, when it is a connection. */
  organizationOf(key: ProviderKey): OrganizationBinding | undefined {
    if (this.#byKey.has(key)) return undefined;
    const connection = this.connections?.registry.byName(key);
    return connection && bindingOf(connection);
  }
}

export function bindingOf(connection: Connection): OrganizationBinding {
  return { connection: connection.name, organization: connection.organization, domains: connection.domains };
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
