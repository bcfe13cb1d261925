import type { Middleware } from 'koa';
import type { Endpoint } from '../adapters/koa/endpoint.js';
import { adminScimTokensRoutes } from '../adapters/koa/routes/admin-scim-tokens-routes.js';
import { scimDiscoveryRoutes } from '../adapters/koa/scim/scim-discovery-routes.js';
import { scimGuard } from '../adapters/koa/scim/scim-guard.js';
import { scimGroupsRoutes } from '../adapters/koa/scim/scim-groups-routes.js';
import { scimUsersRoutes } from '../adapters/koa/scim/scim-users-routes.js';
import { DirectorySessions, type OrganizationConnections } from '../application/directory/directory-sessions.js';
import { DirectorySignIn } from '../application/directory/directory-sign-in.js';
import { FeedRetention } from '../application/directory/feed-retention.js';
import { ProvisionDirectory } from '../application/directory/provision-directory.js';
import { ScimTokens } from '../application/directory/scim-tokens.js';
import { StoreDirectory } from '../application/directory/store-directory.js';
import { bindingOf, type IdentityProviders } from '../application/identity-providers.js';
import type { AuditLog } from '../application/ports/audit-log.js';
import type { Clock } from '../application/ports/clock.js';
import type { DirectoryStore } from '../application/ports/directory-store.js';
import type { SessionStore } from '../application/ports/session-store.js';
import type { Telemetry } from '../application/ports/telemetry.js';
import type { SessionIndex } from '../application/sign-in/session-index.js';
import type { SignInRecords } from '../application/sign-in/sign-in-records.js';
import type { EndSessions } from '../application/use-cases/end-sessions.js';
import { sessionLifetime } from '../domain/session-lifetime.js';
import type { ComposedConnections } from './connections.js';
import { openDirectoryStore } from './directory-store.js';
import type { ValidatedConfiguration } from './validated-configuration.js';

/** Directory sync of an instance (`Directory:Enabled`): its store, the sign-in check, and its endpoints. */
export interface ComposedDirectory {
  store: DirectoryStore;
  provision: ProvisionDirectory;
  signIn: DirectorySignIn;
  /** The application's reads and subscriptions (the `Directory` port). */
  reader: StoreDirectory;
  /** The organizations' SCIM tokens (the administration API's and the setup portal's). */
  tokens: ScimTokens;
  /** Which connections sign in for an organization: a token is made only for one some connection does. */
  connections: OrganizationConnections;
  /** Ends the subscriptions and the role refreshes under way, then closes the store: once requests are served. */
  close(): Promise<void>;
  /** Removes the feed's changes past `Directory:ChangeRetentionDays` while the instance runs; returns the stop. */
  startRetention(): () => void;
  /** The administration API's token endpoints, behind its caller check. */
  adminEndpoints(caller: Middleware): Endpoint[];
  /** `/scim/v2/{organization}/...`. */
  scimEndpoints(telemetry: Telemetry): Endpoint[];
}

export interface DirectoryParts {
  connections: ComposedConnections;
  providers: IdentityProviders;
  audit: AuditLog;
  clock: Clock;
  /** Where the per-token request counts are kept (the pending-sign-in store, like the other limits). */
  counters: SessionStore;
  sessions: SessionStore;
  /** Resolved when first used: the container makes them after this is composed. */
  services: () => { endSessions: EndSessions; index: SessionIndex; signIns: SignInRecords };
}

/**
 * Composes directory sync over its store, PostgreSQL or the embedded file
 * (directory-store.ts; the start's checks refuse it without the administration API).
 * Undefined when it is off.
 */
export async function composeDirectory(
  configuration: ValidatedConfiguration,
  parts: DirectoryParts,
): Promise<ComposedDirectory | undefined> {
  const { settings, logger } = configuration;
  if (!settings.Directory.Enabled) return undefined;
  const store = await openDirectoryStore(configuration);
  const now = () => parts.clock.now();
  const registry = parts.connections.adapters.registry;
  const connections: OrganizationConnections = {
    of: (organization) =>
      [...registry.all()]
        .filter((connection) => connection.organization === organization)
        .map((connection) => ({ provider: connection.name, binding: bindingOf(connection) })),
    bindingOf: (provider) => parts.providers.organizationOf(provider),
  };
  const services = parts.services;
  const sessions = new DirectorySessions(
    store,
    connections,
    { execute: (selector, reason) => services().endSessions.execute(selector, reason) },
    parts.sessions,
    { sessionsOf: (provider, subject) => services().index.sessionsOf(provider, subject) },
    {
      read: (ref) => services().signIns.read(ref),
      withPrincipal: (signIn, principal) => services().signIns.withPrincipal(signIn, principal),
      release: (ref) => services().signIns.release(ref),
    },
    sessionLifetime(settings.Session),
    now,
  );
  const provision = new ProvisionDirectory(store, sessions, parts.audit, logger, now);
  const tokens = new ScimTokens(store, parts.audit, now);
  const publicOrigin = configuration.publicOrigin;
  const maxBodyBytes = settings.Directory.MaxBodyBytes;
  const reader = new StoreDirectory(store, logger);
  return {
    store,
    provision,
    signIn: new DirectorySignIn(store, now),
    reader,
    tokens,
    connections,
    startRetention: () => new FeedRetention(store, settings.Directory.ChangeRetentionDays, logger, now).start(),
    close: async () => {
      await reader.close();
      await provision.refreshed();
      await store.close();
    },
    adminEndpoints: (caller) => adminScimTokensRoutes({ tokens, connections, caller, publicOrigin }),
    scimEndpoints: (telemetry) => {
      const guard = scimGuard({
        tokens,
        counters: parts.counters,
        requestsPerMinute: settings.Directory.RequestsPerMinute,
        failedAuthenticationsPerMinute: settings.Directory.FailedAuthenticationsPerMinute,
        ipv6PrefixLength: settings.Session.ClientIpv6PrefixLength,
        now,
      });
      const deps = { store, provision, telemetry, guard, publicOrigin, maxBodyBytes };
      return [...scimUsersRoutes(deps), ...scimGroupsRoutes(deps), ...scimDiscoveryRoutes(deps)];
    },
  };
}
