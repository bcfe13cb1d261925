import { builtInPolicies, type PolicyRegistry } from '../domain/authorization/policies.js';
import type { AuthorizationSettings } from '../domain/settings/settings.js';

/**
 * The one place where the application's named authorization policies are registered.
 * The three built-in policies come from configuration; add yours below, for example:
 *
 *   registry.add(definePolicy('application.Claim.Beta', requireClaim('application:group', ['beta'])));
 *   registry.add(definePolicy('application.Custom.Weekday', { kind: 'custom', description: 'weekdays only', test: () => new Date().getDay() % 6 !== 0 }));
 *
 * and reference them from an endpoint with `authorize('application.Claim.Beta')`.
 */
export function applicationPolicies(authorization: AuthorizationSettings): PolicyRegistry {
  const registry = builtInPolicies(authorization);
  return registry;
}
