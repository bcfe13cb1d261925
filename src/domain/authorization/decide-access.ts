import type { Principal } from '../claims/principal.js';
import { GatehouseError } from '../errors.js';
import type { EndpointMetadata } from './endpoint-metadata.js';
import { mergeNeeds, satisfiable, type AuthenticationNeed } from './authentication-need.js';
import { evaluatePolicy, type AuthorizationResource, type StepUp } from './evaluate-policy.js';
import { definePolicy, type Policy, type PolicyRegistry } from './policies.js';

/**
 * What the authorization middleware does with a request:
 * - `allow`: run the handler;
 * - `challenge`: nobody is signed in and the endpoint needs someone (send to sign-in);
 * - `forbid`: the caller may not have it (access-denied page); `failed` names the failing
 *   policies, or `authentication.disabled`;
 * - `step_up`: the caller would have it with a stronger or more recent sign-in (RFC 9470):
 *   `failed` names the policies, `need` is what the new sign-in must meet (all of them
 *   merged), `reasons` say what is missing in words ("a sign-in within the last 5 minutes").
 */
export type AccessDecision =
  | { outcome: 'allow' }
  | { outcome: 'challenge' }
  | { outcome: 'forbid'; failed: string[] }
  | { outcome: 'step_up'; failed: string[]; need: AuthenticationNeed; reasons: string[] };

export interface AccessContext {
  /** `ProjectTemplate:Authorization:RequireAuthenticatedUserByDefault`. */
  requireAuthenticatedUserByDefault: boolean;
  /** `ProjectTemplate:Authentication:Enabled`. */
  authenticationEnabled: boolean;
  policies: PolicyRegistry;
}

/** The `failed` reason when an endpoint needs a user but authentication is switched off. */
export const AUTHENTICATION_DISABLED = 'authentication.disabled';

// Default (metadata without names) and fallback (no metadata) are separate policies that
// happen to require the same thing today (docs: Authorization rules, 1).
const DEFAULT_POLICY = definePolicy('default');
const FALLBACK_POLICY = definePolicy('fallback');

/**
 * Decides access to one endpoint. Anonymous metadata allows; `authorize()` applies the
 * default policy; `authorize(names)` applies every named policy; no metadata applies the
 * fallback (an authenticated user, or nothing when `requireAuthenticatedUserByDefault` is false).
 * With authentication disabled, anything that needs a user is forbidden, not challenged:
 * nobody can sign in, so a challenge would loop.
 * @throws GatehouseError `config.unknown_policy` when metadata names an unregistered policy
 *   (a programming error; `missingPolicies` finds these at startup).
 */
export function decideEndpointAccess(
  metadata: EndpointMetadata | undefined,
  principal: Principal | undefined,
  context: AccessContext,
  resource?: AuthorizationResource,
): AccessDecision {
  const required = requiredPolicies(metadata, context);
  if (required.length === 0) return { outcome: 'allow' };
  if (!context.authenticationEnabled) return { outcome: 'forbid', failed: [AUTHENTICATION_DISABLED] };
  if (principal === undefined) return { outcome: 'challenge' };
  const failed: string[] = [];
  const stepUps: StepUp[] = [];
  let onlyStepUps = true;
  for (const policy of required) {
    const decision = evaluatePolicy(policy, principal, resource);
    if (decision.allowed) continue;
    failed.push(policy.name);
    if (decision.stepUp) stepUps.push(decision.stepUp);
    else onlyStepUps = false;
  }
  if (failed.length === 0) return { outcome: 'allow' };
  // A step-up only when a new sign-in could pass every failing policy: a need no sign-in meets is a plain refusal.
  const need = mergeNeeds(stepUps.map((stepUp) => stepUp.need));
  if (!onlyStepUps || !satisfiable(need)) return { outcome: 'forbid', failed };
  const reasons = [...new Set(stepUps.flatMap((stepUp) => stepUp.reasons))];
  return { outcome: 'step_up', failed, need, reasons };
}

/** Policy names in `metadata` that `registry` does not hold: run over the endpoint table at startup. */
export function missingPolicies(metadata: EndpointMetadata | undefined, registry: PolicyRegistry): string[] {
  if (metadata?.kind !== 'authorize') return [];
  return metadata.policies.filter((name) => registry.get(name) === undefined);
}

/** How an endpoint is protected, in words, for the endpoint inventory. */
export function effectiveAccess(
  metadata: EndpointMetadata | undefined,
  requireAuthenticatedUserByDefault: boolean,
): string {
  if (metadata === undefined)
    return requireAuthenticatedUserByDefault ? 'fallback: authenticated user' : 'fallback: none (public)';
  if (metadata.kind === 'anonymous') return 'anonymous';
  return metadata.policies.length === 0
    ? 'default policy (authenticated user)'
    : `policies: ${metadata.policies.join(', ')}`;
}

function requiredPolicies(metadata: EndpointMetadata | undefined, context: AccessContext): Policy[] {
  if (metadata === undefined) return context.requireAuthenticatedUserByDefault ? [FALLBACK_POLICY] : [];
  if (metadata.kind === 'anonymous') return [];
  if (metadata.policies.length === 0) return [DEFAULT_POLICY];
  return [...new Set(metadata.policies)].map((name) => {
    const policy = context.policies.get(name);
    if (policy === undefined) {
      throw new GatehouseError(
        'config.unknown_policy',
        `An endpoint requires the authorization policy "${name}", which is not registered.`,
      );
    }
    return policy;
  });
}
