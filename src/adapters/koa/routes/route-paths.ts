import Router from '@koa/router';

/**
 * Every routed path of the application, declared without handlers: the startup rules
 * check that no provider's callback path collides with one before anything is composed,
 * and the pipeline refuses to mount an endpoint whose path is not declared here. Add your
 * routes' paths here, then their endpoints to the endpoint table.
 */
export const RoutePaths = {
  health: '/health',
  healthLive: '/health/live',
  healthReady: '/health/ready',
  error: '/Home/Error{/:statusCode}',
  login: '/Account/Login',
  logout: '/Account/Logout',
  accessDenied: '/Account/AccessDenied',
  sessions: '/Account/Sessions',
  challenge: '/External/Challenge',
  discover: '/External/Discover',
  home: '/',
  admin: '/Admin',
  appInfo: '/api/app-info',
  appInfoAdmin: '/api/app-info/admin',
  appInfoManage: '/api/app-info/manage',
  organizationAppInfo: '/api/organizations/:organization/app-info',
  organizationAppInfoAdmin: '/api/organizations/:organization/app-info/admin',
  // Where directory sync is on: the sample application's page of an organization's people.
  organizationPeople: '/Organizations/:organization/People',
  adminOpenApi: '/api/admin/openapi.json',
  adminConnections: '/api/admin/connections',
  adminConnection: '/api/admin/connections/:name',
  adminConnectionDomains: '/api/admin/connections/:name/domains',
  adminConnectionDomain: '/api/admin/connections/:name/domains/:domain',
  adminConnectionDomainVerify: '/api/admin/connections/:name/domains/:domain/verify',
  adminConnectionAttempts: '/api/admin/connections/:name/attempts',
  adminConnectionCertificates: '/api/admin/connections/:name/certificates',
  adminSetupLinks: '/api/admin/organizations/:organization/setup-links',
  adminSetupLink: '/api/admin/organizations/:organization/setup-links/:id',
  adminScimTokens: '/api/admin/organizations/:organization/scim-tokens',
  adminScimToken: '/api/admin/organizations/:organization/scim-tokens/:id',
  // Directory sync (docs/directory-sync.md): each organization's SCIM 2.0 service provider.
  scimUsers: '/scim/v2/:organization/Users',
  scimUser: '/scim/v2/:organization/Users/:id',
  scimGroups: '/scim/v2/:organization/Groups',
  scimGroup: '/scim/v2/:organization/Groups/:id',
  scimServiceProviderConfig: '/scim/v2/:organization/ServiceProviderConfig',
  scimResourceTypes: '/scim/v2/:organization/ResourceTypes',
  scimResourceType: '/scim/v2/:organization/ResourceTypes/:id',
  scimSchemas: '/scim/v2/:organization/Schemas',
  scimSchema: '/scim/v2/:organization/Schemas/:id',
  // The setup portal (docs/connections.md, The setup portal): a link's own page, then the
  // portal session's pages, all under /setup/portal (its cookie's path).
  setupLink: '/setup/link/:token',
  portal: '/setup/portal',
  portalEnd: '/setup/portal/end',
  portalProvider: '/setup/portal/provider',
  portalServiceProvider: '/setup/portal/service-provider',
  portalServiceProviderMetadata: '/setup/portal/service-provider/metadata.xml',
  portalIdentityProvider: '/setup/portal/identity-provider',
  portalIdentityProviderCheck: '/setup/portal/identity-provider/check',
  portalDomains: '/setup/portal/domains',
  portalDomainVerify: '/setup/portal/domains/verify',
  portalDomainRemove: '/setup/portal/domains/remove',
  portalTest: '/setup/portal/test',
  portalTestResult: '/setup/portal/test/result',
  portalActivate: '/setup/portal/activate',
  portalAttempts: '/setup/portal/attempts',
  portalHelp: '/setup/portal/help',
  // Where directory sync is on: the portal's optional step, the organization's SCIM tokens.
  portalDirectory: '/setup/portal/directory',
  portalDirectoryTokens: '/setup/portal/directory/tokens',
  portalDirectoryRevoke: '/setup/portal/directory/tokens/revoke',
} as const;

export const routedPaths: readonly string[] = Object.values(RoutePaths);

/** True when a declared route (a @koa/router pattern) matches this concrete path. */
export function isRoutedPath(path: string): boolean {
  return matcher.match(path, 'GET').path.length > 0;
}

const matcher = new Router();
for (const path of routedPaths) matcher.all(path, async () => undefined);
