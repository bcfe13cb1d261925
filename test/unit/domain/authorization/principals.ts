import { GatehouseError } from '../../../../src/domain/errors.js';
import type { Principal } from '../../../../src/domain/claims/principal.js';
import type { AuthorizationSettings } from '../../../../src/domain/settings/settings.js';

/** The starter authorization settings (docs/configuration.md, Authorization). */
export const starterAuthorization: AuthorizationSettings = {
  RequireAuthenticatedUserByDefault: true,
  RoleClaimType: 'application:role',
  PermissionClaimType: 'application:permission',
  AdministratorRoles: ['Administrator'],
  ManageApplicationPermissions: ['application.manage'],
  StepUp: {},
};

/** A signed-in user holding exactly `claims` (type, value). */
export function userWith(...claims: Array<[type: string, value: string]>): Principal {
  return { scheme: 'Cookies', claims: claims.map(([type, value]) => ({ type, value, issuer: 'Cookies' })) };
}

/** The code of the GatehouseError `action` throws, or undefined when it does not throw. */
export function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return error instanceof GatehouseError ? error.code : 'not a GatehouseError';
  }
  return undefined;
}
