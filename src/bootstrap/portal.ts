import type { DependencyContainer } from 'tsyringe';
import { AuditLogToken, type AuditLog } from '../application/ports/audit-log.js';
import { ClockToken, type Clock } from '../application/ports/clock.js';
import { IdentityProvidersToken } from '../application/ports/identity-provider.js';
import type { IdentityProviders } from '../application/identity-providers.js';
import { PendingSignInStoreToken, SessionStoreToken, type SessionStore } from '../application/ports/session-store.js';
import { PortalCheckLimits } from '../application/portal/portal-check-limits.js';
import { PortalSessions } from '../application/portal/portal-sessions.js';
import { PortalSetup } from '../application/portal/portal-setup.js';
import { PortalTestResults } from '../application/portal/test-results.js';
import { BeginSignIn } from '../application/use-cases/begin-sign-in.js';
import type { Endpoint } from '../adapters/koa/endpoint.js';
import type { FlowBindingCookie } from '../adapters/koa/flow-binding-cookie.js';
import { portalCookie } from '../adapters/koa/portal/portal-cookie.js';
import { portalRoutes } from '../adapters/koa/portal/portal-routes.js';
import { attemptsRoutes } from '../adapters/koa/portal/attempts-step.js';
import { helpRoutes } from '../adapters/koa/portal/help-step.js';
import { certificatesSection } from '../adapters/koa/portal/certificates-section.js';
import { providerRoutes } from '../adapters/koa/portal/provider-step.js';
import { serviceProviderRoutes } from '../adapters/koa/portal/service-provider-step.js';
import { identityProviderRoutes } from '../adapters/koa/portal/identity-provider-step.js';
import { domainsRoutes, type DomainRecordHelp } from '../adapters/koa/portal/domains-step.js';
import { directoryRoutes } from '../adapters/koa/portal/directory-step.js';
import { HttpConnectionPreflight } from '../adapters/preflight/http-connection-preflight.js';
import { sessionCookieName } from '../adapters/koa/session/session-middleware.js';
import type { ComposedAdministration } from './administration.js';
import { ComposedDirectoryToken } from './container.js';
import type { ComposedDirectory } from './directory.js';
import type { ValidatedConfiguration } from './validated-configuration.js';

/** The session cookie's name with `.portal`, its `__Host-` prefix turned `__Secure-` (a path-scoped cookie cannot be `__Host-`). */
function portalCookieName(sessionCookie: string): string {
  return `${sessionCookie.replace(/^__Host-/, '__Secure-')}.portal`;
}

/** What the composer of an instance (not its settings) tells the portal: GatehouseOptions' part for it. */
export interface PortalOptions {
  /** How a TXT record is published on a DNS the composer runs (the demo's); absent, the record alone. */
  domainRecordHelp?: DomainRecordHelp;
}

/**
 * The setup portal's endpoints (docs/connections.md, The setup portal): on wherever the
 * administration API is, over the same use case, its sessions in the session store.
 */
export function composePortal(
  container: DependencyContainer,
  configuration: ValidatedConfiguration,
  administration: ComposedAdministration,
  flowBinding: FlowBindingCookie,
  options: PortalOptions = {},
): Endpoint[] {
  const { settings, environment } = configuration;
  const production = environment === 'production';
  const clock = container.resolve<Clock>(ClockToken);
  const now = () => clock.now();
  const sessions = new PortalSessions(container.resolve<SessionStore>(SessionStoreToken), now);
  const setup = new PortalSetup(
    administration.manage,
    container.resolve<AuditLog>(AuditLogToken),
    container.resolve<SessionStore>(SessionStoreToken),
    now,
  );
  const providers = container.resolve<IdentityProviders>(IdentityProvidersToken);
  const { publicOrigin } = configuration;
  const { directory } = container.resolve<{ directory?: ComposedDirectory }>(ComposedDirectoryToken);
  return portalRoutes({
    links: administration.links,
    sessions,
    // `__Secure-` in production, never `__Host-`: that prefix demands Path=/, and the portal's cookie is its path's only.
    cookie: portalCookie(portalCookieName(sessionCookieName(settings.Session, production)), production),
    setup,
    tests: container.resolve(PortalTestResults),
    beginSignIn: container.resolve(BeginSignIn),
    flowBinding,
    publicOrigin: configuration.publicOrigin,
    ...(administration.certificates ? { certificates: certificatesSection(administration.certificates) } : {}),
    optionalSteps: directory ? ['directory'] : [],
    steps: (guard) => [
      ...attemptsRoutes({ attempts: administration.attempts }, guard),
      ...helpRoutes(guard),
      ...providerRoutes({ sessions, publicOrigin }, guard),
      ...serviceProviderRoutes({ setup, providers, publicOrigin }, guard),
      ...identityProviderRoutes(
        {
          setup,
          // The administration API's pre-flight, with the same guard and `AllowPrivateNetworks`.
          preflight: new HttpConnectionPreflight({
            allowPrivateNetworks: settings.Administration.AllowPrivateNetworks,
            allowHttp: environment === 'development',
          }),
          limits: new PortalCheckLimits(container.resolve<SessionStore>(PendingSignInStoreToken)),
          publicOrigin,
        },
        guard,
      ),
      ...domainsRoutes(
        { setup, publicOrigin, ...(options.domainRecordHelp ? { recordHelp: options.domainRecordHelp } : {}) },
        guard,
      ),
      ...(directory
        ? directoryRoutes(
            { tokens: directory.tokens, connections: directory.connections, directory: directory.reader, publicOrigin },
            guard,
          )
        : []),
    ],
  });
}
