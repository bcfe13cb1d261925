import { ClaimTypes } from '../claims/claim-types.js';
import type { AuthorizationSettings } from '../settings/settings.js';

/**
 * The claim types that carry the deployment's own roles and permissions: the configured
 * `RoleClaimType` and `PermissionClaimType`, and the application's defaults beside them
 * (a policy of the application may read either). Only the deployment's own providers, and a
 * connection the configuration marked `GrantsDeploymentRoles`, may put a value in them.
 */
export function deploymentClaimTypes(authorization: AuthorizationSettings): ReadonlySet<string> {
  return new Set([
    ClaimTypes.Role,
    ClaimTypes.Permission,
    authorization.RoleClaimType,
    authorization.PermissionClaimType,
  ]);
}
