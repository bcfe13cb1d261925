import type { Principal } from '../../../../src/domain/claims/principal.js';
import type { AuthorizationSettings } from '../../../../src/domain/settings/settings.js';

/** The contract's starter authorization settings. */
export const starterAuthorization: AuthorizationSettings = {
  RequireAuthenticatedUserByDefault: true,
  RoleClaimType: 'application:role',
  PermissionClaimType: 'application:permission',
  AdministratorRoles: ['Administrator'],
  ManageApplicationPermissions: ['application.manage'],
};

/** A signed-in user holding exactly `claims` (type, value). */
export function userWith(...claims: Array<[type: string, value: string]>): Principal {
  return { scheme: 'Cookies', claims: claims.map(([type, value]) => ({ type, value, issuer: 'Cookies' })) };
}
