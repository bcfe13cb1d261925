import type { Middleware } from 'koa';
import type { AuditLog } from '../application/ports/audit-log.js';
import type { Clock } from '../application/ports/clock.js';
import type { HealthCheck } from '../application/ports/health-check.js';
import type { SessionStore } from '../application/ports/session-store.js';
import { AdministrationLimits } from '../application/administration/administration-limits.js';
import { DomainRechecks } from '../application/administration/domain-rechecks.js';
import { ManageConnections } from '../application/administration/manage-connections.js';
import type { ConnectionCatalog } from '../application/ports/connection-catalog.js';
import { connectionSectionSchema } from '../adapters/connections/connection-section.js';
import { DnsTxtRecords } from '../adapters/dns/dns-txt-records.js';
import { ApiKeys } from '../adapters/koa/api-keys.js';
import type { Endpoint } from '../adapters/koa/endpoint.js';
import { adminCaller } from '../adapters/koa/routes/admin-caller.js';
import { adminConnectionsRoutes } from '../adapters/koa/routes/admin-connections-routes.js';
import { adminConnectionStatusRoutes } from '../adapters/koa/routes/admin-connection-status-routes.js';
import type { CertificateExpiry } from '../application/connections/certificate-expiry.js';
import type { SignInAttempts } from '../application/connections/sign-in-attempts.js';
import { adminOpenApi } from '../adapters/koa/routes/admin-openapi.js';
import { adminSchemas } from '../adapters/koa/routes/admin-schemas.js';
import { adminSetupLinksRoutes } from '../adapters/koa/routes/admin-setup-links-routes.js';
import { SetupLinks } from '../application/portal/setup-links.js';
import { HttpConnectionPreflight } from '../adapters/preflight/http-connection-preflight.js';
import { applicationIdentity } from './application-identity.js';
import type { ComposedConnections } from './connections.js';
import type { ValidatedConfiguration } from './validated-configuration.js';

/** The administration API of an instance: its endpoints, and the domains' re-check it runs while listening. */
export interface ComposedAdministration {
  endpoints: Endpoint[];
  /** Starts the periodic re-check of verified domains; returns the stop. */
  startRechecks(): () => void;
  /** For the setup portal, composed with the pipeline (it starts sign-ins): the same use case and links. */
  manage: ManageConnections;
  links: SetupLinks;
  /** For the setup portal too: a connection's recent attempts and its certificates. */
  attempts: SignInAttempts;
  certificates?: CertificateExpiry;
}

/** How often the re-check looks for domains due (each is looked up once per `Administration:DomainRecheckSeconds`). */
const RECHECK_ROUND_MS = 10 * 60_000;

export interface AdministrationParts {
  audit: AuditLog;
  clock: Clock;
  /** The pending-sign-in store: the API's rate limits count there, as the sign-in limits do. */
  counters: SessionStore;
  /** The session store: setup links live there (memory, or Redis shared by every instance). */
  sessions: SessionStore;
  attempts: SignInAttempts;
  certificates?: CertificateExpiry;
  /** More endpoints of the API behind the same caller check and in the same OpenAPI document (directory sync's tokens). */
  moreEndpoints?: (caller: Middleware) => Endpoint[];
}

/**
 * Composes the administration API (`Administration:Enabled`) over the instance's catalog:
 * undefined when it is off or there is no catalog (the start's checks refused that).
 */
export function composeAdministration(
  configuration: ValidatedConfiguration,
  connections: ComposedConnections | undefined,
  parts: AdministrationParts,
): ComposedAdministration | undefined {
  const { settings, rootDir } = configuration;
  const admin = settings.Administration;
  const catalog = connections?.catalog;
  if (!admin.Enabled || !connections || !catalog) return undefined;
  const now = () => parts.clock.now();
  const prefixes = { namePrefix: admin.DomainRecordPrefix, valuePrefix: admin.DomainValuePrefix };
  const servers = admin.DnsServers.map((server) => server.trim());
  const txtRecords = new DnsTxtRecords(servers.length > 0 ? { servers } : {});
  const registry = connections.adapters.registry;
  const manage = new ManageConnections({
    catalog,
    registry,
    declare: connections.declare,
    readKeys: (name, body, origin) => connections.reader.read(name, body, origin, async () => ({ refused: 'outside' })),
    secretKeys: connections.reader.secretKeys,
    ...(connections.sealing ? { sealing: connections.sealing } : {}),
    preflight: new HttpConnectionPreflight({
      allowPrivateNetworks: admin.AllowPrivateNetworks,
      // https only; http too in Development, still never to the deployment's own networks.
      allowHttp: configuration.environment === 'development',
    }),
    txtRecords,
    audit: parts.audit,
    now,
    prefixes,
    missesBeforeUnverified: admin.DomainMissesBeforeUnverified,
  });
  const rechecks = new DomainRechecks({
    catalog,
    registry,
    declare: connections.declare,
    txtRecords,
    audit: parts.audit,
    logger: configuration.logger,
    now,
    prefixes,
    intervalMs: admin.DomainRecheckSeconds * 1000,
    missesBeforeUnverified: admin.DomainMissesBeforeUnverified,
  });
  const schemas = adminSchemas(connectionSectionSchema(configuration.schema.json));
  const caller = adminCaller({
    apiKeys: new ApiKeys(admin.ApiKeys),
    limits: new AdministrationLimits(parts.counters, settings.Session.ClientIpv6PrefixLength),
    permissionClaimType: settings.Authorization.PermissionClaimType,
    permission: admin.ManagePermission,
    publicOrigin: configuration.publicOrigin,
  });
  const links = new SetupLinks(parts.sessions, parts.audit, now);
  // The document describes the endpoints it is served with: built from the table, then served by it.
  const document: Record<string, unknown> = {};
  const endpoints = [
    ...adminConnectionsRoutes({ manage, caller, schemas, openApi: document }),
    ...adminSetupLinksRoutes({ links, manage, caller, publicOrigin: configuration.publicOrigin }),
    ...adminConnectionStatusRoutes({
      manage,
      caller,
      attempts: parts.attempts,
      ...(parts.certificates ? { certificates: parts.certificates } : {}),
    }),
    ...(parts.moreEndpoints?.(caller) ?? []),
  ];
  Object.assign(document, adminOpenApi(endpoints, schemas, applicationIdentity(rootDir).version));
  return {
    endpoints,
    startRechecks: () => rechecks.start(Math.min(RECHECK_ROUND_MS, admin.DomainRecheckSeconds * 1000)),
    manage,
    links,
    attempts: parts.attempts,
    ...(parts.certificates ? { certificates: parts.certificates } : {}),
  };
}

/** Readiness reports the catalog out of reach as degraded, never required: sign-ins through known connections go on. */
export function catalogHealthCheck(catalog: ConnectionCatalog): HealthCheck {
  return {
    name: 'connectionCatalog',
    required: false,
    check: async () => (catalog.health() === 'up' ? 'up' : 'degraded'),
  };
}
