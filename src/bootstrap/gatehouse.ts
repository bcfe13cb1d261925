import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import Router from '@koa/router';
import type Koa from 'koa';
import type { DestinationStream } from 'pino';
import { GovernanceToken, type Governance } from '../application/ports/governance.js';
import type { HealthCheck } from '../application/ports/health-check.js';
import type { IdentityProvider } from '../application/ports/identity-provider.js';
import type { Logger } from '../application/ports/logger.js';
import type { SessionStore } from '../application/ports/session-store.js';
import { BeginSignIn } from '../application/use-cases/begin-sign-in.js';
import { CheckReadiness } from '../application/use-cases/check-readiness.js';
import { CompleteSignIn } from '../application/use-cases/complete-sign-in.js';
import { DrainState } from '../application/use-cases/drain-state.js';
import { RefreshTokens } from '../application/use-cases/refresh-tokens.js';
import { SignOut } from '../application/use-cases/sign-out.js';
import { loadConfiguration } from '../adapters/config/load-configuration.js';
import { createApp } from '../adapters/koa/app.js';
import type { Endpoint } from '../adapters/koa/endpoint.js';
import { authentication } from '../adapters/koa/middleware/authentication.js';
import { authorizeEndpoint } from '../adapters/koa/middleware/authorize-endpoint.js';
import { remoteCallbacks } from '../adapters/koa/middleware/remote-callbacks.js';
import { accountRoutes } from '../adapters/koa/routes/account-routes.js';
import { appInfoRoutes } from '../adapters/koa/routes/app-info-routes.js';
import { errorRoutes } from '../adapters/koa/routes/error-routes.js';
import { externalRoutes } from '../adapters/koa/routes/external-routes.js';
import { healthRoutes } from '../adapters/koa/routes/health-routes.js';
import { homeRoutes } from '../adapters/koa/routes/home-routes.js';
import { SavedTokens } from '../adapters/koa/session/saved-tokens.js';
import { SignInRecords } from '../adapters/koa/session/sign-in-records.js';
import { sessionLifetime, sessionMiddleware } from '../adapters/koa/session/session-middleware.js';
import { createPinoLogger } from '../adapters/logging/pino-logger.js';
import { SessionStoreHealthCheck } from '../adapters/session/session-store-health-check.js';
import { SystemClock } from '../adapters/system-clock.js';
import { missingPolicies } from '../domain/authorization/decide-access.js';
import { checkSettings, checkUnknownKeys, registeredProviders } from '../domain/settings/check-settings.js';
import { error, type SettingsProblem } from '../domain/settings/problem.js';
import type { Environment, ProjectTemplateSettings } from '../domain/settings/settings.js';
import { AVAILABLE_PROVIDERS, createIdentityProviders, createSessionStore, type AdapterProblems } from './adapters.js';
import { buildContainer } from './container.js';
import { applicationPolicies } from './policies.js';
import { findProjectRoot } from './project-root.js';
import { formatProblem, StartupError } from './startup-error.js';

export interface GatehouseOptions {
  /** Process environment (and nothing else is read from process.env). */
  env: Record<string, string | undefined>;
  rootDir?: string;
  /** Where log lines go (stdout by default), possibly depending on the environment. */
  logDestination?: DestinationStream | ((environment: Environment) => DestinationStream | undefined);
  /** The consuming application's governance component; by default everything is allowed and nothing recorded. */
  governance?: Governance;
}

export interface Gatehouse {
  app: Koa;
  settings: ProjectTemplateSettings;
  environment: Environment;
  logger: Logger;
  endpoints: readonly Endpoint[];
  identityProviders: readonly IdentityProvider[];
  /** The server-side store of sessions and sign-in flows (operators' scripts and tests write sessions through it). */
  sessionStore: SessionStore;
  warnings: SettingsProblem[];
  /** HOST and PORT from the configuration sources (127.0.0.1:3000 by default). */
  listenOn: { port: number; host: string };
  /** Connects the stores, then listens. */
  listen(port: number, host: string): Promise<Server>;
  /** Readiness 503 at once, keep serving for the drain period, stop accepting, close stores. */
  shutdown(): Promise<void>;
}

/**
 * Composes one Gatehouse instance: reads and checks the configuration (throwing a
 * StartupError with every problem), then wires adapters, container and the Koa app.
 * Nothing listens and no connection opens until `listen`.
 */
export async function createGatehouse(options: GatehouseOptions): Promise<Gatehouse> {
  const rootDir = options.rootDir ?? findProjectRoot();
  const configuration = loadConfiguration(rootDir, options.env);
  const { settings, environment } = configuration;
  const logger = createPinoLogger({
    // A mistyped level must not stop the log that reports it.
    level: configuration.problems.some((p) => p.key === 'ProjectTemplate:Logging:Level')
      ? 'info'
      : settings.Logging.Level,
    secretValues: configuration.secretValues,
    destination:
      typeof options.logDestination === 'function' ? options.logDestination(environment) : options.logDestination,
  });
  const fail = (problems: SettingsProblem[]) => {
    for (const problem of problems)
      logger[problem.severity === 'error' ? 'error' : 'warn']({ key: problem.key }, formatProblem(problem));
    if (problems.some((p) => p.severity === 'error')) throw new StartupError(problems);
  };
  if (configuration.problems.length > 0)
    fail([...configuration.problems, ...checkUnknownKeys(settings, configuration.unknownKeys)]);

  const publicOrigin = resolvePublicOrigin(settings, environment, configuration.listen);
  const clock = new SystemClock();
  const policies = applicationPolicies(settings.Authorization);
  const refusedByAdapters: AdapterProblems = { problems: [] };
  const sessionStore = await createSessionStore(settings, logger, clock, refusedByAdapters);
  const identityProviders = publicOrigin.problem
    ? []
    : await createIdentityProviders(
        settings,
        { publicOrigin: publicOrigin.value, environment, logger, clock },
        refusedByAdapters,
      );
  const healthChecks: HealthCheck[] = [
    new SessionStoreHealthCheck(sessionStore.store),
    ...identityProviders.flatMap((p) => (p.healthCheck ? [p.healthCheck] : [])),
  ];
  const container = buildContainer({
    settings,
    environment,
    logger,
    clock,
    sessionStore: sessionStore.store,
    identityProviders,
    healthChecks,
    governance: options.governance,
  });

  const savedTokens = new SavedTokens(sessionStore.store, settings.Session.AbsoluteLifetime * 1000);
  const signIns = new SignInRecords(sessionStore.store, settings.Session.AbsoluteLifetime * 1000);
  const endpoints: Endpoint[] = [
    ...healthRoutes(container.resolve(CheckReadiness)),
    ...errorRoutes(),
    ...accountRoutes({
      providers: identityProviders.map((p) => p.info),
      authenticationEnabled: settings.Authentication.Enabled,
      signOut: container.resolve(SignOut),
      savedTokens,
      signIns,
      // Forms must come from the configured origin; without one (development), from the request's own.
      publicOrigin: settings.Hosting.PublicOrigin.replace(/\/$/, ''),
    }),
    ...externalRoutes({ beginSignIn: container.resolve(BeginSignIn) }),
    ...homeRoutes({ policies }),
    ...appInfoRoutes({
      info: appInfo(rootDir, environment, clock.now()),
      governance: container.resolve(GovernanceToken),
      now: () => clock.now(),
    }),
  ];

  const ruleProblems = checkSettings(settings, {
    environment,
    unknownKeys: configuration.unknownKeys,
    availableProviders: AVAILABLE_PROVIDERS,
    isRoutedPath: routedPathMatcher(endpoints),
  });
  const problems = [
    ...ruleProblems,
    // An adapter's refusal matters only where the rules did not already name the key.
    ...refusedByAdapters.problems.filter((p) => !ruleProblems.some((r) => r.key === p.key)),
    ...(publicOrigin.problem ? [publicOrigin.problem] : []),
    // A route naming a policy nobody registered is a programming error: catch it before any request.
    ...endpoints.flatMap((e) =>
      missingPolicies(e.metadata, policies).map((name) =>
        error(`${e.method} ${e.path}`, `names the unregistered policy "${name}"`),
      ),
    ),
  ];
  fail(problems);

  const access = {
    requireAuthenticatedUserByDefault: settings.Authorization.RequireAuthenticatedUserByDefault,
    authenticationEnabled: settings.Authentication.Enabled,
    policies,
  };
  const oidc = settings.Authentication.Providers.OpenIdConnect;
  const app = createApp({
    logger,
    production: environment === 'production',
    showStackTraces: environment === 'development',
    trustProxy: settings.Hosting.TrustProxy,
    viewsDir: join(rootDir, 'views'),
    publicDir: join(rootDir, 'public'),
    // RP-initiated logout redirects a form POST to the provider; CSP form-action must allow it.
    formActionOrigins:
      registeredProviders(settings).includes('OpenIdConnect') && oidc.SignOutAtProvider
        ? [new URL(oidc.Authority).origin]
        : [],
    endpoints,
    sessionPipeline: (koa) => [
      sessionMiddleware({
        app: koa,
        store: sessionStore.store,
        settings: settings.Session,
        production: environment === 'production',
        clock,
        releaseExpired: async (record) => {
          await Promise.all([signIns.releaseFor(record), savedTokens.releaseFor(record)]);
        },
      }),
      authentication({
        clock,
        lifetime: sessionLifetime(settings.Session),
        refreshTokens: container.resolve(RefreshTokens),
        savedTokens,
        signIns,
      }),
      remoteCallbacks({
        providers: identityProviders.map((p) => p.info),
        completeSignIn: container.resolve(CompleteSignIn),
        savedTokens,
        signIns,
        publicOrigin: publicOrigin.value,
        clock,
      }),
    ],
    authorizeEndpoint: (endpoint) =>
      authorizeEndpoint(endpoint, access, { challengeScheme: settings.Authentication.DefaultChallengeScheme }),
  });

  const drain = container.resolve(DrainState);
  let server: Server | undefined;
  return {
    app,
    settings,
    environment,
    logger,
    endpoints,
    identityProviders,
    sessionStore: sessionStore.store,
    warnings: problems,
    listenOn: configuration.listen,
    listen: async (port, host) => {
      await sessionStore.connect();
      return new Promise((resolve, reject) => {
        const listening = app.listen(port, host, () => resolve(listening));
        listening.once('error', reject);
        server = listening;
      });
    },
    shutdown: async () => {
      drain.startDraining();
      await new Promise((resolve) => setTimeout(resolve, settings.Hosting.ShutdownDrainSeconds * 1000));
      if (server) {
        const closed = new Promise((resolve) => server?.close(resolve));
        server.closeIdleConnections();
        await closed;
      }
      await sessionStore.store.close();
    },
  };
}

/**
 * Absolute URLs come from `Hosting:PublicOrigin`; outside production it defaults to the
 * listening address. Never from the Host header.
 */
function resolvePublicOrigin(
  settings: ProjectTemplateSettings,
  environment: Environment,
  listen: { port: number; host: string },
): { value: string; problem?: SettingsProblem } {
  const configured = settings.Hosting.PublicOrigin.replace(/\/$/, '');
  if (configured !== '' || environment === 'production') return { value: configured || 'https://invalid.example' };
  const host =
    listen.host === '0.0.0.0' || listen.host === '::'
      ? 'localhost'
      : listen.host.includes(':')
        ? `[${listen.host}]`
        : listen.host;
  const value = `http://${host}:${listen.port}`;
  if (listen.port === 0 && registeredProviders(settings).length > 0) {
    return {
      value,
      problem: error(
        'ProjectTemplate:Hosting:PublicOrigin',
        'is required when PORT is 0 and a provider is enabled: redirect URIs need a known origin',
      ),
    };
  }
  return { value };
}

function appInfo(rootDir: string, environment: Environment, startedAt: number) {
  const manifest: unknown = JSON.parse(readFileSync(join(rootDir, 'package.json'), 'utf8'));
  const field = (name: string) =>
    typeof manifest === 'object' && manifest !== null && name in manifest
      ? String((manifest as Record<string, unknown>)[name])
      : 'unknown';
  return { name: field('name'), version: field('version'), environment, startedAt };
}

/** True when a routed endpoint would answer GET or POST at this path. */
function routedPathMatcher(endpoints: readonly Endpoint[]): (path: string) => boolean {
  const router = new Router();
  for (const endpoint of endpoints) router.register(endpoint.path, [endpoint.method], [async () => undefined]);
  return (path) => ['GET', 'POST'].some((method) => router.match(path, method).route);
}
