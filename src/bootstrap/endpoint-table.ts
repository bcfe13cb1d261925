import type { Governance } from '../application/ports/governance.js';
import type { IdentityProviders } from '../application/identity-providers.js';
import type { DiscoverConnection } from '../application/use-cases/discover-connection.js';
import type { BeginSignIn } from '../application/use-cases/begin-sign-in.js';
import type { CheckReadiness } from '../application/use-cases/check-readiness.js';
import type { ManageSessions } from '../application/use-cases/manage-sessions.js';
import type { SignOut } from '../application/use-cases/sign-out.js';
import type { Endpoint } from '../adapters/koa/endpoint.js';
import type { FlowBindingCookie } from '../adapters/koa/flow-binding-cookie.js';
import { formActionOrigins } from '../adapters/koa/form-redirect.js';
import { ApplicationPolicyNames } from './policies.js';
import { accountRoutes } from '../adapters/koa/routes/account-routes.js';
import { adminRoutes } from '../adapters/koa/routes/admin-routes.js';
import { appInfoRoutes } from '../adapters/koa/routes/app-info-routes.js';
import { errorRoutes } from '../adapters/koa/routes/error-routes.js';
import { externalRoutes } from '../adapters/koa/routes/external-routes.js';
import { healthRoutes } from '../adapters/koa/routes/health-routes.js';
import { homeRoutes } from '../adapters/koa/routes/home-routes.js';
import { peopleRoutes } from '../adapters/koa/routes/people-routes.js';
import { sessionsRoutes } from '../adapters/koa/routes/sessions-routes.js';
import type { Directory } from '../application/ports/directory.js';
import type { SignedOutNotice } from '../adapters/koa/signed-out-notice.js';
import type { PolicyRegistry } from '../domain/authorization/policies.js';
import type { Environment, ProjectTemplateSettings } from '../domain/settings/settings.js';
import { applicationIdentity } from './application-identity.js';
import { routedPaths } from '../adapters/koa/routes/route-paths.js';
import { missingPolicies } from '../domain/authorization/decide-access.js';
import { connectionIdInPath } from '../domain/connections/connection.js';

export interface EndpointTableParts {
  settings: ProjectTemplateSettings;
  environment: Environment;
  rootDir: string;
  startedAt: number;
  now: () => number;
  policies: PolicyRegistry;
  /** The instance's identity providers (the login page lists them; pages name them). */
  providers: IdentityProviders;
  flowBinding: FlowBindingCookie;
  signedOutNotice: SignedOutNotice;
  checkReadiness: CheckReadiness;
  beginSignIn: BeginSignIn;
  discoverConnection: DiscoverConnection;
  signOut: SignOut;
  manageSessions: ManageSessions;
  governance: Governance;
  /** The administration API's endpoints (bootstrap/administration.ts); none when it is off. */
  administration?: readonly Endpoint[];
  /** Organizations' directories, where directory sync is on: the sample page of an organization's people. */
  directory?: Directory;
}

/**
 * Every routed endpoint of the application, in one table: what `npm run routes` prints,
 * what the anonymous-allowlist test checks, and what the app mounts. Add yours here (and
 * their paths to RoutePaths).
 */
export function endpointTable(parts: EndpointTableParts): Endpoint[] {
  const { settings, environment, providers } = parts;
  const info = appInfo(parts.rootDir, environment, parts.startedAt);
  const formActions = formActionOrigins(providers.builtIn);
  return [
    ...healthRoutes(parts.checkReadiness),
    ...errorRoutes(),
    ...accountRoutes({
      providers,
      flowBinding: parts.flowBinding,
      authenticationEnabled: settings.Authentication.Enabled,
      signOut: parts.signOut,
      // Forms must come from the configured origin; without one (development), from the request's own.
      publicOrigin: settings.Hosting.PublicOrigin.replace(/\/$/, ''),
      signedOutNotice: parts.signedOutNotice,
      developmentHints: environment !== 'production',
      formActionOrigins: formActions,
    }),
    ...sessionsRoutes({
      manageSessions: parts.manageSessions,
      providers,
      publicOrigin: settings.Hosting.PublicOrigin.replace(/\/$/, ''),
      signedOutNotice: parts.signedOutNotice,
      signOut: parts.signOut,
      formActionOrigins: formActions,
    }),
    ...externalRoutes({
      providers,
      authenticationEnabled: settings.Authentication.Enabled,
      developmentHints: environment !== 'production',
      beginSignIn: parts.beginSignIn,
      discoverConnection: parts.discoverConnection,
      flowBinding: parts.flowBinding,
      publicOrigin: settings.Hosting.PublicOrigin.replace(/\/$/, ''),
      formActionOrigins: formActions,
    }),
    ...homeRoutes({
      policies: parts.policies,
      providers,
      posture: {
        authenticationEnabled: settings.Authentication.Enabled,
        requireAuthenticatedUserByDefault: settings.Authorization.RequireAuthenticatedUserByDefault,
      },
      now: parts.now,
      peoplePage: parts.directory !== undefined,
    }),
    ...adminRoutes({
      info,
      now: parts.now,
      providers,
      authorization: settings.Authorization,
      session: settings.Session,
    }),
    ...appInfoRoutes({
      info,
      governance: parts.governance,
      now: parts.now,
      organizationMemberPolicy: ApplicationPolicyNames.OrganizationMember,
      organizationAdministratorPolicy: ApplicationPolicyNames.OrganizationAdministrator,
    }),
    ...(parts.directory
      ? peopleRoutes({
          directory: parts.directory,
          organizationMemberPolicy: ApplicationPolicyNames.OrganizationMember,
        })
      : []),
    ...(parts.administration ?? []),
  ];
}

function appInfo(rootDir: string, environment: Environment, startedAt: number) {
  const { name, version } = applicationIdentity(rootDir);
  return { name, version, environment, startedAt };
}

/**
 * An endpoint at an undeclared path, under the connections' paths, or naming a policy
 * nobody registered is a programming error: thrown at composition, before any request.
 */
export function refuseMisdeclaredEndpoints(endpoints: readonly Endpoint[], policies: PolicyRegistry): void {
  for (const endpoint of endpoints) {
    if (connectionIdInPath(endpoint.path) !== undefined) {
      throw new Error(`${endpoint.method} ${endpoint.path} is under /connections/, which the connections own`);
    }
    if (!routedPaths.includes(endpoint.path)) {
      throw new Error(`${endpoint.method} ${endpoint.path} is not declared in RoutePaths (route-paths.ts)`);
    }
    const missing = missingPolicies(endpoint.metadata, policies);
    if (missing.length > 0) {
      throw new Error(`${endpoint.method} ${endpoint.path} names the unregistered policy "${missing.join('", "')}"`);
    }
  }
}
