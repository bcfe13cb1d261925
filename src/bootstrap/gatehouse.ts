import 'reflect-metadata';
import type { Server } from 'node:http';
import type Koa from 'koa';
import { DrainState } from '../application/drain-state.js';
import { EndSessions } from '../application/use-cases/end-sessions.js';
import type { AuditLog } from '../application/ports/audit-log.js';
import type { Governance } from '../application/ports/governance.js';
import { IdentityProvidersToken, type IdentityProvider } from '../application/ports/identity-provider.js';
import type { IdentityProviders } from '../application/identity-providers.js';
import type { Directory } from '../application/ports/directory.js';
import type { Logger } from '../application/ports/logger.js';
import type { Endpoint } from '../adapters/koa/endpoint.js';
import type { DomainRecordHelp } from '../adapters/koa/portal/domains-step.js';
import type { ProviderRecord } from '../adapters/provider-record.js';
import type { Environment, ProjectTemplateSettings } from '../domain/settings/settings.js';
import {
  ComposedConnectionsToken,
  ComposedDirectoryToken,
  ComposedTelemetryToken,
  composeServices,
  SessionStoresToken,
} from './container.js';
import type { ComposedDirectory } from './directory.js';
import type { ComposedTelemetry, TelemetryParts } from './telemetry.js';
import type { ComposedConnections } from './connections.js';
import { lifecycle } from './lifecycle.js';
import { createPipeline } from './pipeline.js';
import { findProjectRoot } from './project-root.js';
import { builtInProviders } from './provider-catalogue.js';
import type { SessionStores } from './session-stores.js';
import { validatedConfiguration, type ConfigurationOptions } from './validated-configuration.js';

export interface GatehouseOptions extends Omit<ConfigurationOptions, 'rootDir' | 'providers'> {
  rootDir?: string;
  /** The identity providers offered: this build's own by default; an application may pass its own records too. */
  providers?: readonly ProviderRecord[];
  /** The consuming application's governance component; by default everything is allowed and nothing recorded. */
  governance?: Governance;
  /** Where audit events go; by default one JSON line each (`"audit":true`) on the application log. */
  auditLog?: AuditLog;
  /** Telemetry readers and span processors of the application's own (another backend; tests' in-memory exporters). */
  telemetry?: TelemetryParts;
  /**
   * How a domain's TXT record is published where this deployment's customers' DNS is one its
   * composer runs (`npm run demo`: a `curl` to the demo's DNS server): the setup portal's
   * domains step shows the sentence and command beside each record. Absent (a deployment):
   * the record alone, which the IT admin publishes at their DNS host.
   */
  domainRecordHelp?: DomainRecordHelp;
}

export interface Gatehouse {
  app: Koa;
  settings: ProjectTemplateSettings;
  environment: Environment;
  logger: Logger;
  /** Writes the log lines held for the next block now (the "listening" line, for the person watching the start). */
  flushLog(): void;
  endpoints: readonly Endpoint[];
  /** The deployment's own providers (Authentication:Providers), as built at start. */
  identityProviders: readonly IdentityProvider[];
  /**
   * Every identity provider, the connections' included, found as requests find them: by
   * scheme, by key (a connection's name), by path (a connection's adapter built on first use).
   */
  providers: IdentityProviders;
  /** The server-side stores: signed-in state, and pending sign-ins (operators' scripts read and write sessions through them). */
  stores: SessionStores;
  /** Organizations' people and groups as their directories pushed them, and the changes (directory sync on only). */
  directory?: Directory;
  /**
   * Ends every session of a user at a provider, on every instance sharing the store (an
   * account change, an administrator's decision); resolves to how many ended.
   */
  endAllSessions(provider: string, subject: string, by?: 'administrator' | 'system'): Promise<number>;
  /** HOST and PORT from the configuration sources (127.0.0.1:3000 by default). */
  listenOn: { port: number; host: string };
  /** Connects the stores, opens the Prometheus listener if configured, then listens. */
  listen(port: number, host: string): Promise<Server>;
  /** The Prometheus scrape URL once listening, when `Telemetry:PrometheusPort` asks for one. */
  metricsUrl(): Promise<string | undefined>;
  /** Readiness 503 at once, keep serving for the drain period (unless `drain: false`), stop accepting, close stores. */
  shutdown(options?: { drain?: boolean }): Promise<void>;
}

/**
 * Composes one Gatehouse instance in three parts: the configuration, checked whole
 * (a StartupError lists every problem); the services, built from settings that passed;
 * the HTTP pipeline. Nothing listens and no connection opens until `listen`.
 */
export async function createGatehouse(options: GatehouseOptions): Promise<Gatehouse> {
  const configuration = await validatedConfiguration({
    ...options,
    rootDir: options.rootDir ?? findProjectRoot(),
    providers: options.providers ?? builtInProviders,
  });
  const container = await composeServices(configuration, options);
  const { app, endpoints } = createPipeline(container, configuration, {
    ...(options.domainRecordHelp ? { domainRecordHelp: options.domainRecordHelp } : {}),
  });
  const stores = container.resolve<SessionStores>(SessionStoresToken);
  const telemetry = container.resolve<ComposedTelemetry>(ComposedTelemetryToken);
  const { directory } = container.resolve<{ directory?: ComposedDirectory }>(ComposedDirectoryToken);
  return {
    metricsUrl: () => telemetry.listen(),
    app,
    settings: configuration.settings,
    environment: configuration.environment,
    logger: configuration.logger,
    flushLog: () => configuration.destination.flush?.(),
    endpoints,
    identityProviders: container.resolve<IdentityProviders>(IdentityProvidersToken).builtIn,
    providers: container.resolve<IdentityProviders>(IdentityProvidersToken),
    stores,
    ...(directory ? { directory: directory.reader } : {}),
    endAllSessions: (provider, subject, by = 'administrator') =>
      container.resolve(EndSessions).execute({ provider, subject }, { by, cause: 'account_change' }),
    listenOn: configuration.listenOn,
    ...lifecycle({
      app,
      stores,
      drain: container.resolve(DrainState),
      drainSeconds: configuration.settings.Hosting.ShutdownDrainSeconds,
      watch: () =>
        container.resolve<{ connections?: ComposedConnections }>(ComposedConnectionsToken).connections?.watch() ??
        (() => undefined),
      telemetry,
      closeAfterServing: async () => directory?.close(),
    }),
  };
}
