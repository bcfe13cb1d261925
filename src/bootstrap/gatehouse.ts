import 'reflect-metadata';
import type { Server } from 'node:http';
import { join } from 'node:path';
import Router from '@koa/router';
import type Koa from 'koa';
import { DrainState } from '../application/drain-state.js';
import type { Governance } from '../application/ports/governance.js';
import type { HealthCheck } from '../application/ports/health-check.js';
import type { IdentityProvider } from '../application/ports/identity-provider.js';
import type { Logger } from '../application/ports/logger.js';
import type { SessionStore } from '../application/ports/session-store.js';
import { SavedTokens } from '../application/sign-in/saved-tokens.js';
import { SignInRecords } from '../application/sign-in/sign-in-records.js';
import { AuthenticateSession } from '../application/use-cases/authenticate-session.js';
import { CompleteSignIn } from '../application/use-cases/complete-sign-in.js';
import { loadConfiguration } from '../adapters/config/load-configuration.js';
import { createApp } from '../adapters/koa/app.js';
import type { Endpoint } from '../adapters/koa/endpoint.js';
import { flowBindingCookie } from '../adapters/koa/flow-binding-cookie.js';
import { signedOutNotice } from '../adapters/koa/signed-out-notice.js';
import { authentication } from '../adapters/koa/middleware/authentication.js';
import { authorizeEndpoint } from '../adapters/koa/middleware/authorize-endpoint.js';
import { remoteCallbacks } from '../adapters/koa/middleware/remote-callbacks.js';
import { sessionCookieName } from '../adapters/koa/session/session-middleware.js';
import { bufferedDestination, type LogDestination } from '../adapters/logging/buffered-destination.js';
import { createJsonLinesLogger } from '../adapters/logging/json-lines-logger.js';
import { SessionStoreHealthCheck } from '../adapters/session/session-store-health-check.js';
import { SystemClock } from '../adapters/system-clock.js';
import { missingPolicies } from '../domain/authorization/decide-access.js';
import { checkSettings, checkUnknownKeys, registeredProviders } from '../domain/settings/check-settings.js';
import { error, type SettingsProblem } from '../domain/settings/problem.js';
import type { Environment, ProjectTemplateSettings } from '../domain/settings/settings.js';
import { buildContainer } from './container.js';
import { endpointTable } from './endpoint-table.js';
import { AVAILABLE_PROVIDERS, createIdentityProviders } from './identity-providers.js';
import { lifecycle } from './lifecycle.js';
import { applicationPolicies } from './policies.js';
import { findProjectRoot } from './project-root.js';
import { resolvePublicOrigin } from './public-origin.js';
import { createSessionStores } from './session-stores.js';
import { formatProblem, StartupError } from './startup-error.js';

export interface GatehouseOptions {
  /** Process environment (and nothing else is read from process.env). */
  env: Record<string, string | undefined>;
  rootDir?: string;
  /** Where log lines go (stdout by default), possibly depending on the environment. */
  logDestination?: LogDestination | ((environment: Environment) => LogDestination | undefined);
  /** The consuming application's governance component; by default everything is allowed and nothing recorded. */
  governance?: Governance;
}

export interface Gatehouse {
  app: Koa;
  settings: ProjectTemplateSettings;
  environment: Environment;
  logger: Logger;
  /** Writes the log lines held for the next block now (the "listening" line, for the person watching the start). */
  flushLog(): void;
  endpoints: readonly Endpoint[];
  identityProviders: readonly IdentityProvider[];
  /** The server-side store of signed-in state (operators' scripts and tests read and write sessions through it). */
  sessionStore: SessionStore;
  /** The store of pending sign-ins (the same server as `sessionStore` on Redis, its own bound in memory). */
  pendingSignInStore: SessionStore;
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
 * StartupError with every problem), builds the stores and identity adapters, the
 * container, the endpoint table and the Koa app. Nothing listens and no connection opens
 * until `listen`.
 */
export async function createGatehouse(options: GatehouseOptions): Promise<Gatehouse> {
  const rootDir = options.rootDir ?? findProjectRoot();
  const configuration = loadConfiguration(rootDir, options.env);
  const { settings, environment } = configuration;
  const destination =
    (typeof options.logDestination === 'function' ? options.logDestination(environment) : options.logDestination) ??
    bufferedDestination();
  const logger = createJsonLinesLogger({
    // A mistyped level must not stop the log that reports it.
    level: configuration.problems.some((p) => p.key === 'ProjectTemplate:Logging:Level')
      ? 'info'
      : settings.Logging.Level,
    secretValues: configuration.secretValues,
    destination,
  });
  const fail = (problems: SettingsProblem[]) => {
    for (const problem of problems)
      logger[problem.severity === 'error' ? 'error' : 'warn']({ key: problem.key }, formatProblem(problem));
    if (problems.some((p) => p.severity === 'error')) throw new StartupError(problems);
  };
  if (configuration.problems.length > 0)
    fail([...configuration.problems, ...checkUnknownKeys(settings, configuration.unknownKeys)]);

  // Composition: stores, identity adapters, container.
  const production = environment === 'production';
  const publicOrigin = resolvePublicOrigin(settings, environment, configuration.listen);
  const clock = new SystemClock();
  const policies = applicationPolicies(settings.Authorization);
  const refusedByAdapters: SettingsProblem[] = [];
  const stores = await createSessionStores(settings, logger, clock, refusedByAdapters);
  const identityProviders = publicOrigin.problem
    ? []
    : await createIdentityProviders(
        {
          settings,
          publicOrigin: publicOrigin.value,
          environment,
          logger,
          clock,
          sessionStore: stores.sessions,
          rootDir,
        },
        refusedByAdapters,
      );
  const healthChecks: HealthCheck[] = [
    new SessionStoreHealthCheck(stores.sessions),
    ...identityProviders.flatMap((p) => (p.healthCheck ? [p.healthCheck] : [])),
  ];
  const container = buildContainer({
    settings,
    logger,
    clock,
    sessionStore: stores.sessions,
    pendingSignInStore: stores.pendingSignIns,
    identityProviders,
    healthChecks,
    governance: options.governance,
  });

  // The endpoint table, then every startup rule at once.
  const cookieName = sessionCookieName(settings.Session, production);
  const flowBinding = flowBindingCookie(`${cookieName}.flow`, production);
  const endpoints = endpointTable({
    container,
    settings,
    environment,
    rootDir,
    startedAt: clock.now(),
    now: () => clock.now(),
    policies,
    identityProviders,
    flowBinding,
    signedOutNotice: signedOutNotice(`${cookieName}.signedout`, production),
  });
  const ruleProblems = checkSettings(settings, {
    environment,
    unknownKeys: configuration.unknownKeys,
    availableProviders: AVAILABLE_PROVIDERS,
    isRoutedPath: routedPathMatcher(endpoints),
  });
  const problems = [
    ...ruleProblems,
    // An adapter's refusal matters only where the rules did not already name the key.
    ...refusedByAdapters.filter((p) => !ruleProblems.some((r) => r.key === p.key)),
    ...(publicOrigin.problem ? [publicOrigin.problem] : []),
    // A route naming a policy nobody registered is a programming error: catch it before any request.
    ...endpoints.flatMap((e) =>
      missingPolicies(e.metadata, policies).map((name) =>
        error(`${e.method} ${e.path}`, `names the unregistered policy "${name}"`),
      ),
    ),
  ];
  fail(problems);

  // The HTTP pipeline.
  const signIns = container.resolve(SignInRecords);
  const savedTokens = container.resolve(SavedTokens);
  const oidc = settings.Authentication.Providers.OpenIdConnect;
  const access = {
    requireAuthenticatedUserByDefault: settings.Authorization.RequireAuthenticatedUserByDefault,
    authenticationEnabled: settings.Authentication.Enabled,
    policies,
  };
  const app = createApp({
    logger,
    production,
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
    // With authentication disabled no session is ever read or written.
    session: settings.Authentication.Enabled
      ? {
          storage: {
            store: stores.sessions,
            settings: settings.Session,
            production,
            clock,
            releaseExpired: async (record) => {
              await Promise.all([signIns.releaseFor(record), savedTokens.releaseFor(record)]);
            },
          },
          authentication: authentication({
            authenticate: container.resolve(AuthenticateSession),
            remoteCallbacks: remoteCallbacks({
              providers: identityProviders,
              completeSignIn: container.resolve(CompleteSignIn),
              flowBinding,
              publicOrigin: publicOrigin.value,
            }),
          }),
        }
      : undefined,
    authorizeEndpoint: (endpoint) =>
      authorizeEndpoint(endpoint, access, { challengeScheme: settings.Authentication.DefaultChallengeScheme }),
  });

  return {
    app,
    settings,
    environment,
    logger,
    flushLog: () => destination.flush?.(),
    endpoints,
    identityProviders,
    sessionStore: stores.sessions,
    pendingSignInStore: stores.pendingSignIns,
    warnings: problems,
    listenOn: configuration.listen,
    ...lifecycle(app, stores, container.resolve(DrainState), settings.Hosting.ShutdownDrainSeconds),
  };
}

/** True when a routed endpoint would answer GET or POST at this path. */
function routedPathMatcher(endpoints: readonly Endpoint[]): (path: string) => boolean {
  const router = new Router();
  for (const endpoint of endpoints) router.register(endpoint.path, [endpoint.method], [async () => undefined]);
  return (path) => ['GET', 'POST'].some((method) => router.match(path, method).route);
}
