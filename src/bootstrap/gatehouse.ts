import 'reflect-metadata';
import type { Server } from 'node:http';
import { join } from 'node:path';
import Router from '@koa/router';
import type Koa from 'koa';
import type { DestinationStream } from 'pino';
import type { Logger } from '../application/ports/logger.js';
import { CheckReadiness } from '../application/use-cases/check-readiness.js';
import { DrainState } from '../application/use-cases/drain-state.js';
import { createApp } from '../adapters/koa/app.js';
import type { Endpoint } from '../adapters/koa/endpoint.js';
import { errorRoutes } from '../adapters/koa/routes/error-routes.js';
import { healthRoutes } from '../adapters/koa/routes/health-routes.js';
import { loadConfiguration } from '../adapters/config/load-configuration.js';
import { createPinoLogger } from '../adapters/logging/pino-logger.js';
import { checkSettings, checkUnknownKeys } from '../domain/settings/check-settings.js';
import type { SettingsProblem } from '../domain/settings/problem.js';
import type { Environment, ProjectTemplateSettings, ProviderKey } from '../domain/settings/settings.js';
import { buildContainer } from './container.js';
import { findProjectRoot } from './project-root.js';
import { formatProblem, StartupError } from './startup-error.js';

export interface GatehouseOptions {
  /** Process environment (and nothing else is read from process.env). */
  env: Record<string, string | undefined>;
  rootDir?: string;
  /** Where log lines go (stdout by default), possibly depending on the environment. */
  logDestination?: DestinationStream | ((environment: Environment) => DestinationStream | undefined);
}

export interface Gatehouse {
  app: Koa;
  settings: ProjectTemplateSettings;
  environment: Environment;
  logger: Logger;
  endpoints: readonly Endpoint[];
  warnings: SettingsProblem[];
  /** HOST and PORT from the configuration sources (127.0.0.1:3000 by default). */
  listenOn: { port: number; host: string };
  listen(port: number, host: string): Promise<Server>;
  /** Readiness 503 at once, keep serving for the drain period, stop accepting, close stores. */
  shutdown(): Promise<void>;
}

/** Providers this build ships an identity adapter for. */
const AVAILABLE_PROVIDERS: readonly ProviderKey[] = [];

/**
 * Composes one Gatehouse instance: reads and checks the configuration (throwing a
 * StartupError with every problem), then wires the container and the Koa app. Nothing
 * listens and no connection opens until `listen`.
 */
export function createGatehouse(options: GatehouseOptions): Gatehouse {
  const rootDir = options.rootDir ?? findProjectRoot();
  const configuration = loadConfiguration(rootDir, options.env);
  const { settings, environment } = configuration;
  const logger = createPinoLogger({
    // A mistyped level must not stop the log that reports it.
    level: configuration.problems.some((p) => p.key === 'ProjectTemplate:Logging:Level') ? 'info' : settings.Logging.Level,
    secretValues: configuration.secretValues,
    destination: typeof options.logDestination === 'function' ? options.logDestination(environment) : options.logDestination,
  });

  const container = buildContainer({ settings, environment, logger });
  const endpoints: Endpoint[] = [...healthRoutes(container.resolve(CheckReadiness)), ...errorRoutes()];

  const problems = configuration.problems.length > 0
    ? [...configuration.problems, ...checkUnknownKeys(settings, configuration.unknownKeys)]
    : checkSettings(settings, {
        environment,
        unknownKeys: configuration.unknownKeys,
        availableProviders: AVAILABLE_PROVIDERS,
        isRoutedPath: routedPathMatcher(endpoints),
      });
  for (const problem of problems) {
    logger[problem.severity === 'error' ? 'error' : 'warn']({ key: problem.key }, formatProblem(problem));
  }
  if (problems.some((p) => p.severity === 'error')) throw new StartupError(problems);

  const app = createApp({
    logger,
    production: environment === 'production',
    showStackTraces: environment === 'development',
    trustProxy: settings.Hosting.TrustProxy,
    viewsDir: join(rootDir, 'views'),
    publicDir: join(rootDir, 'public'),
    formActionOrigins: [],
    endpoints,
    sessionPipeline: [],
    authorizeEndpoint: () => undefined,
  });

  const drain = container.resolve(DrainState);
  let server: Server | undefined;
  return {
    app,
    settings,
    environment,
    logger,
    endpoints,
    warnings: problems,
    listenOn: configuration.listen,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        const listening = app.listen(port, host, () => resolve(listening));
        listening.once('error', reject);
        server = listening;
      }),
    shutdown: async () => {
      drain.startDraining();
      await new Promise((resolve) => setTimeout(resolve, settings.Hosting.ShutdownDrainSeconds * 1000));
      if (server) {
        const closed = new Promise((resolve) => server?.close(resolve));
        server.closeIdleConnections();
        await closed;
      }
    },
  };
}

/** True when a routed endpoint would answer GET or POST at this path. */
function routedPathMatcher(endpoints: readonly Endpoint[]): (path: string) => boolean {
  const router = new Router();
  for (const endpoint of endpoints) router.register(endpoint.path, [endpoint.method], [async () => undefined]);
  return (path) => ['GET', 'POST'].some((method) => router.match(path, method).route);
}
