import type { Principal } from '../claims/principal.js';
import { evaluatePolicy } from './evaluate-policy.js';
import type { PolicyRegistry } from './policies.js';

/**
 * Names of the registered policies `principal` satisfies at `now` (milliseconds since the
 * epoch; without it, policies on the age of the sign-in are not satisfied), in
 * registration order: the starter page shows them so a developer can see what a sign-in
 * grants. An anonymous caller satisfies none (every named policy includes the
 * authenticated-user baseline).
 */
export function satisfiedPolicies(registry: PolicyRegistry, principal: Principal | undefined, now?: number): string[] {
  return registry
    .list()
    .filter(
      (policy) =>
        evaluatePolicy(policy, principal, { routeParameters: {}, ...(now === undefined ? {} : { now }) }).allowed,
    )
    .map((policy) => policy.name);
}

/**
 * Names of the policies `principal` satisfies at `now`, or would satisfy after a stronger
 * or more recent sign-in (a step-up): where a page may link to, since following the link
 * gets the step-up.
 */
export function reachablePolicies(registry: PolicyRegistry, principal: Principal | undefined, now: number): string[] {
  return registry
    .list()
    .filter((policy) => {
      const decision = evaluatePolicy(policy, principal, { routeParameters: {}, now });
      return decision.allowed || decision.stepUp !== undefined;
    })
    .map((policy) => policy.name);
}
