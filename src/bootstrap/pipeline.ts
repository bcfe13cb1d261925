import { join } from 'node:path';
import type Koa from 'koa';
import type { DependencyContainer } from 'tsyringe';
import { AuditLogToken, type AuditLog } from '../application/ports/audit-log.js';
import { ClockToken, type Clock } from '../application/ports/clock.js';
import { GovernanceToken, type Governance } from '../application/ports/governance.js';
import { IdentityProvidersToken } from '../application/ports/identity-provider.js';
import type { IdentityProviders } from '../application/identity-providers.js';
import { DiscoverConnection } from '../application/use-cases/discover-connection.js';
import { SessionStoreToken, type SessionStore } from '../application/ports/session-store.js';
import { ProviderSessions } from '../application/sign-in/provider-sessions.js';
import { SignInRecords } from '../application/sign-in/sign-in-records.js';
import { AuthenticateSession } from '../application/use-cases/authenticate-session.js';
import { BeginSignIn } from '../application/use-cases/begin-sign-in.js';
import { CheckReadiness } from '../application/use-cases/check-readiness.js';
import { CompleteSignIn } from '../application/use-cases/complete-sign-in.js';
import { ManageSessions } from '../application/use-cases/manage-sessions.js';
import { ReceiveProviderLogout } from '../application/use-cases/receive-provider-logout.js';
import { SignOut } from '../application/use-cases/sign-out.js';
import { createApp } from '../adapters/koa/app.js';
import type { Endpoint } from '../adapters/koa/endpoint.js';
import { flowBindingCookie } from '../adapters/koa/flow-binding-cookie.js';
import { authentication } from '../adapters/koa/middleware/authentication.js';
import { authorizeEndpoint } from '../adapters/koa/middleware/authorize-endpoint.js';
import { providerLogouts } from '../adapters/koa/middleware/provider-logouts.js';
import { remoteCallbacks } from '../adapters/koa/middleware/remote-callbacks.js';
import { sessionCookieName } from '../adapters/koa/session/session-middleware.js';
import { signedOutNotice } from '../adapters/koa/signed-out-notice.js';
import { applicationIdentity } from './application-identity.js';
import { formActionOrigins } from '../adapters/koa/form-redirect.js';
import { endpointTable, refuseMisdeclaredEndpoints } from './endpoint-table.js';
import type { PolicyRegistry } from '../domain/authorization/policies.js';
import { PoliciesToken } from '../application/settings-token.js';
import type { ValidatedConfiguration } from './validated-configuration.js';
import { AdministrationToken, ComposedDirectoryToken, ComposedTelemetryToken } from './container.js';
import type { ComposedDirectory } from './directory.js';
import { TelemetryToken, type Telemetry } from '../application/ports/telemetry.js';
import type { ComposedAdministration } from './administration.js';
import { composePortal, type PortalOptions } from './portal.js';
import type { ComposedTelemetry } from './telemetry.js';

/** The administration API's endpoints and the setup portal's, when the API is on. */
function administrationEndpoints(
  container: DependencyContainer,
  configuration: ValidatedConfiguration,
  flowBinding: ReturnType<typeof flowBindingCookie>,
  portal: PortalOptions,
): Endpoint[] {
  const { administration } = container.resolve<{ administration?: ComposedAdministration }>(AdministrationToken);
  if (!administration) return [];
  const { directory } = container.resolve<{ directory?: ComposedDirectory }>(ComposedDirectoryToken);
  return [
    ...administration.endpoints,
    ...composePortal(container, configuration, administration, flowBinding, portal),
    ...(directory?.scimEndpoints(container.resolve<Telemetry>(TelemetryToken)) ?? []),
  ];
}

/**
 * The third part of composing an instance: the HTTP pipeline. The use cases are resolved
 * here, once, and handed to the routes and middleware that call them (no route sees the
 * container). The request path, outermost first (createApp): the front door (request log,
 * security headers, error page, probes, static files), the session (koa-session over the
 * store), authentication (the signed-in principal; the providers' callback paths), then
 * each routed endpoint behind its own authorization check.
 */
export function createPipeline(
  container: DependencyContainer,
  configuration: ValidatedConfiguration,
  portal: PortalOptions = {},
): { app: Koa; endpoints: Endpoint[] } {
  const { settings, environment, rootDir } = configuration;
  const production = environment === 'production';
  const clock = container.resolve<Clock>(ClockToken);
  const identityProviders = container.resolve<IdentityProviders>(IdentityProvidersToken);
  const signIns = container.resolve(SignInRecords);
  const providerSessions = container.resolve(ProviderSessions);
  const audit = container.resolve<AuditLog>(AuditLogToken);
  const policies = container.resolve<PolicyRegistry>(PoliciesToken);
  const cookieName = sessionCookieName(settings.Session, production);
  const flowBinding = flowBindingCookie(`${cookieName}.flow`, production);
  const notice = signedOutNotice(`${cookieName}.signedout`, production);
  const { directory } = container.resolve<{ directory?: ComposedDirectory }>(ComposedDirectoryToken);

  const endpoints = endpointTable({
    settings,
    environment,
    rootDir,
    startedAt: clock.now(),
    now: () => clock.now(),
    policies,
    providers: identityProviders,
    flowBinding,
    signedOutNotice: notice,
    checkReadiness: container.resolve(CheckReadiness),
    beginSignIn: container.resolve(BeginSignIn),
    discoverConnection: container.resolve(DiscoverConnection),
    signOut: container.resolve(SignOut),
    manageSessions: container.resolve(ManageSessions),
    governance: container.resolve<Governance>(GovernanceToken),
    administration: administrationEndpoints(container, configuration, flowBinding, portal),
    ...(directory ? { directory: directory.reader } : {}),
  });
  refuseMisdeclaredEndpoints(endpoints, policies);

  const { telemetry, hooks } = container.resolve<ComposedTelemetry>(ComposedTelemetryToken);
  const app = createApp({
    ...(hooks
      ? {
          serverRequests: hooks.serverRequests(
            settings.Hosting.TrustProxy,
            endpoints.filter((endpoint) => endpoint.beforeSession).map((endpoint) => endpoint.path),
          ),
        }
      : {}),
    logger: configuration.logger,
    production,
    showStackTraces: environment === 'development',
    trustProxy: settings.Hosting.TrustProxy,
    viewsDir: join(rootDir, 'views'),
    publicDir: join(rootDir, 'public'),
    applicationName: applicationIdentity(rootDir).displayName,
    // RP-initiated logout redirects a form POST to the provider; CSP form-action must allow it.
    formActionOrigins: formActionOrigins(identityProviders.builtIn),
    endpoints,
    // With authentication disabled no session is ever read or written.
    session: settings.Authentication.Enabled
      ? {
          storage: {
            store: container.resolve<SessionStore>(SessionStoreToken),
            settings: settings.Session,
            production,
            clock,
            releaseExpired: async (record) => {
              await Promise.all([signIns.releaseFor(record), providerSessions.releaseFor(record)]);
            },
          },
          authentication: authentication({
            authenticate: container.resolve(AuthenticateSession),
            providers: identityProviders,
            remoteCallbacks: remoteCallbacks({
              completeSignIn: container.resolve(CompleteSignIn),
              flowBinding,
              publicOrigin: configuration.publicOrigin,
            }),
            providerLogouts: providerLogouts({
              receiveLogout: container.resolve(ReceiveProviderLogout),
              signedOutNotice: notice,
              publicOrigin: configuration.publicOrigin,
            }),
          }),
        }
      : undefined,
    authorizeEndpoint: (endpoint) =>
      authorizeEndpoint(
        endpoint,
        {
          requireAuthenticatedUserByDefault: settings.Authorization.RequireAuthenticatedUserByDefault,
          authenticationEnabled: settings.Authentication.Enabled,
          policies,
        },
        {
          challengeScheme: settings.Authentication.DefaultChallengeScheme,
          publicOrigin: configuration.publicOrigin,
          now: () => clock.now(),
        },
        audit,
        // Counted only when telemetry is on: off, the check does no work for it.
        hooks ? telemetry : undefined,
      ),
  });
  return { app, endpoints };
}
