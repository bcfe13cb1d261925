import { ClaimTypes } from '../claims/claim-types.js';
import { findClaim, type Principal } from '../claims/principal.js';
import type { AuthenticationNeed } from './authentication-need.js';
import { evaluatePolicy } from './evaluate-policy.js';
import type { Policy, PolicyRegistry } from './policies.js';

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

/**
 * Where one policy stands for the starter page: met; met after a stronger or more recent
 * sign-in (`step_up`, with what it needs); met on a route that names the person's own
 * organization (`route`, with those route parameters: the policy reads the route, which
 * the page has none of); or not met.
 */
export type PolicyStanding =
  | { name: string; standing: 'satisfied' }
  | { name: string; standing: 'step_up'; need: AuthenticationNeed }
  | { name: string; standing: 'route'; routeParameters: Readonly<Record<string, string>> }
  | { name: string; standing: 'refused' };

/** Each registered policy's standing for `principal` at `now`, in registration order. */
export function policyStandings(
  registry: PolicyRegistry,
  principal: Principal | undefined,
  now: number,
): PolicyStanding[] {
  return registry.list().map((policy): PolicyStanding => {
    const { name } = policy;
    const decision = evaluatePolicy(policy, principal, { routeParameters: {}, now });
    if (decision.allowed) return { name, standing: 'satisfied' };
    if (decision.stepUp) return { name, standing: 'step_up', need: decision.stepUp.need };
    const routeParameters = ownOrganizationRoute(policy, principal);
    if (routeParameters && evaluatePolicy(policy, principal, { routeParameters, now }).allowed) {
      return { name, standing: 'route', routeParameters };
    }
    return { name, standing: 'refused' };
  });
}

/** The route parameters a policy reads an organization from, each set to the person's organization; undefined when none. */
function ownOrganizationRoute(policy: Policy, principal: Principal | undefined): Record<string, string> | undefined {
  const organization = principal && findClaim(principal, ClaimTypes.Organization);
  if (organization === undefined) return undefined;
  const parameters: Record<string, string> = {};
  for (const requirement of policy.requirements) {
    if (requirement.kind === 'organization' && 'routeParameter' in requirement) {
      parameters[requirement.routeParameter] = organization;
    }
  }
  return Object.keys(parameters).length > 0 ? parameters : undefined;
}
