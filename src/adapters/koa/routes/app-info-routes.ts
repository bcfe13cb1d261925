import type { Governance } from '../../../application/ports/governance.js';
import { authorize } from '../../../domain/authorization/endpoint-metadata.js';
import { PolicyNames } from '../../../domain/authorization/policy-names.js';
import type { Environment } from '../../../domain/settings/settings.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from './route-paths.js';
import { sendJson } from '../json-answer.js';
import { sendProblem } from '../problem-details.js';

export interface AppInfo {
  name: string;
  version: string;
  environment: Environment;
  startedAt: number;
}

/** What any signed-in user may know about the running application. */
export function summarizeAppInfo(info: AppInfo, now: number) {
  return {
    name: info.name,
    version: info.version,
    environment: info.environment,
    uptimeSeconds: Math.floor((now - info.startedAt) / 1000),
  };
}

/** The summary plus runtime details, for administrators only (the admin API and the `/Admin` page). */
export function administratorAppInfo(info: AppInfo, now: number) {
  return { ...summarizeAppInfo(info, now), nodeVersion: process.version, memoryRssBytes: process.memoryUsage.rss() };
}

/**
 * The sample application-information API. `/api/app-info` has no metadata (fallback);
 * the others declare named policies (`/api/organizations/:organization/app-info`: members
 * of the organization the route names; `.../app-info/admin`: its administrators). `/api/app-info/manage` also shows the governance
 * seam: it is consulted only after the endpoint's authorization has passed.
 */
export function appInfoRoutes(deps: {
  info: AppInfo;
  governance: Governance;
  now: () => number;
  /** The application's policy admitting the members of the organization a route names (src/bootstrap/policies.ts). */
  organizationMemberPolicy: string;
  /** The application's policy admitting the administrators (organization role) of the organization a route names. */
  organizationAdministratorPolicy: string;
}): Endpoint[] {
  const summary = () => summarizeAppInfo(deps.info, deps.now());
  return [
    {
      method: 'GET',
      path: RoutePaths.appInfo,
      handler: (ctx) => {
        sendJson(ctx, summary());
      },
    },
    {
      // One organization's view: only its members (signed in through one of its connections) get it.
      method: 'GET',
      path: RoutePaths.organizationAppInfo,
      metadata: authorize(deps.organizationMemberPolicy),
      handler: (ctx) => {
        sendJson(ctx, { organization: String(ctx.params.organization), ...summary() });
      },
    },
    {
      // One organization's administrators only: an organization role from its connection's RoleMappings.
      method: 'GET',
      path: RoutePaths.organizationAppInfoAdmin,
      metadata: authorize(deps.organizationAdministratorPolicy),
      handler: (ctx) => {
        sendJson(ctx, { organization: String(ctx.params.organization), administrator: true, ...summary() });
      },
    },
    {
      method: 'GET',
      path: RoutePaths.appInfoAdmin,
      metadata: authorize(PolicyNames.AdministratorRole),
      handler: (ctx) => {
        sendJson(ctx, administratorAppInfo(deps.info, deps.now()));
      },
    },
    {
      method: 'GET',
      path: RoutePaths.appInfoManage,
      metadata: authorize(PolicyNames.ManageApplicationPermission),
      handler: async (ctx) => {
        const principal = ctx.state.principal;
        // The endpoint's policy let only a signed-in user through; governance comes after it, never instead.
        if (!principal) throw new Error('governance consulted without a signed-in user');
        const decision = await deps.governance.evaluate({ principal, action: 'app-info.manage.read' });
        if (!decision.allowed) return sendProblem(ctx, 403, 'Access denied', decision.reason, 'governance.denied');
        sendJson(ctx, { ...summary(), manageable: ['maintenance-mode', 'feature-flags'] });
      },
    },
  ];
}
