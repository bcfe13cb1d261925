import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { DrainState } from '../application/drain-state.js';
import { AuditLogToken, type AuditLog } from '../application/ports/audit-log.js';
import { ClockToken } from '../application/ports/clock.js';
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
import { IdentityProviders } from '../application/identity-providers.js';
import { ConnectionAdapters } from '../application/connections/connection-adapters.js';
import { EndRemovedConnections } from '../application/connections/end-removed-connections.js';
import { ConnectionRemovals } from '../application/connections/connection-removals.js';
import { DiscoverConnection } from '../application/use-cases/discover-connection.js';
import type { ValidatedConfiguration } from './validated-configuration.js';
import { composeTelemetry, type TelemetryParts } from './telemetry.js';
import { TelemetryToken } from '../application/ports/telemetry.js';

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
];

/** `{ connections }`: the instance's connections as the lifecycle manages them (the folder watched once listening), if any. */
export const ComposedConnectionsToken = Symbol('ComposedConnections');

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
  const healthChecks: HealthCheck[] = [
    new SessionStoreHealthCheck(stores.sessions),
    ...builtInProviders.flatMap((p) => (p.healthCheck ? [p.healthCheck] : [])),
  ];

  const container = rootContainer.createChildContainer();
  container.registerInstance(SettingsToken, settings);
  const policies = applicationPolicies(settings.Authorization);
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
  container.registerInstance(ComposedConnectionsToken, { connections });
  if (connections) container.registerInstance(ConnectionAdapters, connections.adapters);
  container.registerInstance(HealthChecksToken, healthChecks);
  container.registerInstance(GovernanceToken, parts.governance ?? new AllowAllGovernance());
  container.registerInstance(AuditLogToken, parts.auditLog ?? new LogLineAuditLog(logger, clock));
  container.registerInstance(DrainState, new DrainState());
  container.registerInstance(ComposedTelemetryToken, telemetry);
  container.registerInstance(TelemetryToken, telemetry.telemetry);
  for (const service of SERVICES) container.registerSingleton(service);
  if (connections) container.resolve(EndRemovedConnections).listen(connections.adapters.registry);
  return container;
}
