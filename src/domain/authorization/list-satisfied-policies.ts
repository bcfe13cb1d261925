import type { Principal } from '../claims/principal.js';
import { evaluatePolicy } from './evaluate-policy.js';
import type { PolicyRegistry } from './policies.js';

/**
 * Names of the registered policies `principal` satisfies, in registration order: the
 * starter page shows them so a developer can see what a sign-in grants. An anonymous
 * caller satisfies none (every named policy includes the authenticated-user baseline).
 */
export function satisfiedPolicies(registry: PolicyRegistry, principal: Principal | undefined): string[] {
  return registry
    .list()
    .filter((policy) => evaluatePolicy(policy, principal).allowed)
    .map((policy) => policy.name);
}
