import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { DrainState } from '../application/drain-state.js';
import { AuditLogToken, type AuditLog } from '../application/ports/audit-log.js';
import { ClockToken } from '../application/ports/clock.js';
import { DirectoryToken } from '../application/ports/directory.js';
import { GovernanceToken, type Governance } from '../application/ports/governance.js';
import { HealthChecksToken, type HealthCheck } from '../application/ports/health-check.js';
import { IdentityProvidersToken } from '../application/ports/identity-provider.js';
import { LoggerToken } from '../application/ports/logger.js';
import {
  PendingSignInStoreToken,
  ReplayRecordStoreToken,
  SessionStoreToken,
} from '../application/ports/session-store.js';
import { PoliciesToken, ProviderDefinitionsToken, SettingsToken } from '../application/settings-token.js';
import { StepUps } from '../application/sign-in/step-ups.js';
import { applicationPolicies, logStepUps } from './policies.js';
import { FlowRecords } from '../application/sign-in/flow-records.js';
import { ProviderSessions } from '../application/sign-in/provider-sessions.js';
import { SignInRecords } from '../application/sign-in/sign-in-records.js';
import { AuthenticateSession } from '../application/use-cases/authenticate-session.js';
import { BeginSignIn } from '../application/use-cases/begin-sign-in.js';
import { CheckReadiness } from '../application/use-cases/check-readiness.js';
import { CompleteSignIn } from '../application/use-cases/complete-sign-in.js';
import { RefreshProviderSession } from '../application/use-cases/refresh-provider-session.js';
import { SignOut } from '../application/use-cases/sign-out.js';
import { EndSessions } from '../application/use-cases/end-sessions.js';
import { EndedProviderSessions } from '../application/sign-in/ended-provider-sessions.js';
import { ManageSessions } from '../application/use-cases/manage-sessions.js';
import { ReceiveProviderLogout } from '../application/use-cases/receive-provider-logout.js';
import { SessionIndex } from '../application/sign-in/session-index.js';
import { LogLineAuditLog } from '../adapters/audit/log-line-audit.js';
import { AllowAllGovernance } from '../adapters/governance/allow-all-governance.js';
import { SESSION_KEY_PREFIX } from '../adapters/koa/session/session-token.js';
import { MemorySessionStore } from '../adapters/session/memory-session-store.js';
import { SessionStoreHealthCheck } from '../adapters/session/session-store-health-check.js';
import { SystemClock } from '../adapters/system-clock.js';
import { createSessionStores } from './session-stores.js';
import { IdentityAdapters } from './identity-adapters.js';
import { composeConnections } from './connections.js';
import { catalogHealthCheck, composeAdministration } from './administration.js';
import { IdentityProviders } from '../application/identity-providers.js';
import { ConnectionAdapters } from '../application/connections/connection-adapters.js';
import {
  CandidateConnections,
  CandidateConnectionsToken,
  NO_CANDIDATES,
} from '../application/connections/candidate-connections.js';
import { EndRemovedConnections } from '../application/connections/end-removed-connections.js';
import { ConnectionRemovals } from '../application/connections/connection-removals.js';
import { DiscoverConnection } from '../application/use-cases/discover-connection.js';
import { PortalTestResults } from '../application/portal/test-results.js';
import { SignInAttempts } from '../application/connections/sign-in-attempts.js';
import { CertificateExpiry } from '../application/connections/certificate-expiry.js';
import type { ValidatedConfiguration } from './validated-configuration.js';
import { composeTelemetry, type TelemetryParts } from './telemetry.js';
import { TelemetryToken } from '../application/ports/telemetry.js';
import type { Middleware } from 'koa';
import { DirectorySignInToken } from '../application/directory/directory-sign-in.js';
import { composeDirectory } from './directory.js';

/**
 * The application's services and use cases, one instance each per Gatehouse instance,
 * resolved from their `@inject` tokens (ConnectionRemovals among them: the removal times
 * it keeps are what every signed-in request checks).
 */
const SERVICES: ReadonlyArray<new (...args: any[]) => object> = [
  FlowRecords,
  SignInRecords,
  ProviderSessions,
  RefreshProviderSession,
  CheckReadiness,
  StepUps,
  BeginSignIn,
  CompleteSignIn,
  SessionIndex,
  EndSessions,
  EndedProviderSessions,
  ManageSessions,
  SignOut,
  ReceiveProviderLogout,
  AuthenticateSession,
  ConnectionRemovals,
  DiscoverConnection,
  PortalTestResults,
];

/** `{ connections }`: the instance's connections as the lifecycle manages them (the folder watched once listening), if any. */
export const ComposedConnectionsToken = Symbol('ComposedConnections');

/** `{ administration }`: the administration API (`Administration:Enabled`), undefined when it is off. */
export const AdministrationToken = Symbol('ComposedAdministration');

/** Injection token of the instance's stores as the lifecycle manages them (connect, close). */
export const SessionStoresToken = Symbol('SessionStores');

/**
 * The second part of composing an instance, and the only place that registers anything
 * with tsyringe: the adapters, built from validated settings (the stores, one identity
 * adapter per registered provider, the clock, the governance component), and the
 * application's services and use cases, resolved from their `@inject` tokens. Each
 * instance gets its own child container, so two instances can run in one process (tests
 * do). Constructing opens no connection; the pipeline resolves what it needs, once.
 */
export interface ApplicationParts {
  /** The consuming application's governance component; by default everything is allowed and nothing recorded. */
  governance?: Governance;
  /** Where audit events go; by default one JSON line each on the application log. */
  auditLog?: AuditLog;
  /** Readers and span processors of the application's own, beside those the configuration makes (telemetry on only). */
  telemetry?: TelemetryParts;
}

/** The instance's telemetry as the lifecycle and the pipeline use it (ComposedTelemetry). */
export const ComposedTelemetryToken = Symbol('ComposedTelemetry');

/** The instance's directory sync, `{ directory }` (undefined when off): the pipeline mounts its SCIM endpoints. */
export const ComposedDirectoryToken = Symbol('ComposedDirectory');

export async function composeServices(
  configuration: ValidatedConfiguration,
  parts: ApplicationParts = {},
): Promise<DependencyContainer> {
  const { settings, logger } = configuration;
  const clock = new SystemClock();
  const telemetry = await composeTelemetry(configuration, parts.telemetry);
  const created = await createSessionStores(settings, logger, clock);
  // Only a store across the network is traced and timed: the memory store's operations are
  // map lookups of a microsecond or two, which a span and a histogram would cost many times over.
  const stores = (settings.Session.Store === 'Redis' ? telemetry.hooks?.traceStores(created) : undefined) ?? created;
  // The memory store counts its sessions in one pass when a reader collects; Redis would need a SCAN.
  if (created.sessions instanceof MemorySessionStore) {
    const sessions = created.sessions;
    telemetry.hooks?.observeActiveSessions(() => sessions.countLive(SESSION_KEY_PREFIX));
  }
  const adapters = new IdentityAdapters(configuration, clock, stores, telemetry.hooks?.outbound);
  const builtInProviders = await adapters.deploymentProviders();
  const connections = await composeConnections(configuration, (connection) => adapters.forConnection(connection));
  const identityProviders = new IdentityProviders(builtInProviders, connections?.adapters);
  const audit = parts.auditLog ?? new LogLineAuditLog(logger, clock);
  const container = rootContainer.createChildContainer();
  const directory =
    connections &&
    (await composeDirectory(configuration, {
      connections,
      providers: identityProviders,
      audit,
      clock,
      counters: stores.pendingSignIns,
      sessions: stores.sessions,
      services: () => ({
        endSessions: container.resolve(EndSessions),
        index: container.resolve(SessionIndex),
        signIns: container.resolve(SignInRecords),
      }),
    }));
  const healthChecks: HealthCheck[] = [
    new SessionStoreHealthCheck(stores.sessions),
    ...builtInProviders.flatMap((p) => (p.healthCheck ? [p.healthCheck] : [])),
    ...(connections?.catalog ? [catalogHealthCheck(connections.catalog)] : []),
  ];

  container.registerInstance(SettingsToken, settings);
  const policies = applicationPolicies(settings.Authorization, settings.Administration.ManagePermission);
  logStepUps(policies, logger);
  container.registerInstance(PoliciesToken, policies);
  container.registerInstance(ProviderDefinitionsToken, configuration.providers);
  container.registerInstance(LoggerToken, logger);
  container.registerInstance(ClockToken, clock);
  container.registerInstance(SessionStoresToken, stores);
  container.registerInstance(SessionStoreToken, stores.sessions);
  container.registerInstance(PendingSignInStoreToken, stores.pendingSignIns);
  container.registerInstance(ReplayRecordStoreToken, stores.replayRecords);
  container.registerInstance(IdentityProvidersToken, identityProviders);
  if (connections) container.registerInstance(ConnectionAdapters, connections.adapters);
  container.registerInstance(
    CandidateConnectionsToken,
    connections
      ? new CandidateConnections(connections.adapters.registry, connections.declare, (connection) =>
          adapters.forConnection(connection),
        )
      : NO_CANDIDATES,
  );
  container.registerInstance(HealthChecksToken, healthChecks);
  container.registerInstance(GovernanceToken, parts.governance ?? new AllowAllGovernance());
  container.registerInstance(AuditLogToken, audit);
  container.registerInstance(DirectorySignInToken, directory ? { signIn: directory.signIn } : {});
  container.registerInstance(ComposedDirectoryToken, { directory });
  if (directory) container.registerInstance(DirectoryToken, directory.reader);
  // Each connection's recent sign-in attempts and its certificates' expiry: the API's and the portal's.
  const attempts = new SignInAttempts(stores.sessions, clock, logger);
  container.registerInstance(SignInAttempts, attempts);
  const certificates =
    connections &&
    new CertificateExpiry({ adapters: connections.adapters, store: stores.sessions, audit, logger, clock });
  if (certificates) telemetry.hooks?.observeCertificateExpiry(() => certificates.secondsLeft());
  const administration = composeAdministration(configuration, connections, {
    audit,
    clock,
    counters: stores.pendingSignIns,
    sessions: stores.sessions,
    attempts,
    ...(certificates ? { certificates } : {}),
    ...(directory ? { moreEndpoints: (caller: Middleware) => directory.adminEndpoints(caller) } : {}),
  });
  container.registerInstance(AdministrationToken, { administration });
  // While listening, the instance watches the connections' sources and re-checks the domains proved.
  const watched = connections && {
    ...connections,
    watch: () => {
      const stops = [
        connections.watch(),
        administration?.startRechecks(),
        certificates?.start(),
        directory?.startRetention(),
      ];
      return () => stops.forEach((stop) => stop?.());
    },
  };
  container.registerInstance(ComposedConnectionsToken, { connections: watched });
  container.registerInstance(DrainState, new DrainState());
  container.registerInstance(ComposedTelemetryToken, telemetry);
  container.registerInstance(TelemetryToken, telemetry.telemetry);
  for (const service of SERVICES) container.registerSingleton(service);
  if (connections) container.resolve(EndRemovedConnections).listen(connections.adapters.registry);
  return container;
}
