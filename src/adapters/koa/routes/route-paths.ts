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
} as const;

export const routedPaths: readonly string[] = Object.values(RoutePaths);

/** True when a declared route (a @koa/router pattern) matches this concrete path. */
export function isRoutedPath(path: string): boolean {
  return matcher.match(path, 'GET').path.length > 0;
}

const matcher = new Router();
for (const path of routedPaths) matcher.all(path, async () => undefined);
