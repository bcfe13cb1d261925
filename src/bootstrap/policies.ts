import {
  builtInPolicies,
  definePolicy,
  requireOrganization,
  requireOrganizationRole,
  type PolicyRegistry,
} from '../domain/authorization/policies.js';
import type { Logger } from '../application/ports/logger.js';
import { describeNeed, mergeNeeds } from '../domain/authorization/authentication-need.js';
import type { AuthorizationSettings } from '../domain/settings/settings.js';
import { stepUpRequirements, stepUpSections } from '../domain/authorization/step-up-settings.js';

/**
 * The one place where the application's named authorization policies are registered.
 * The three built-in policies come from configuration; add yours below, for example:
 *
 *   registry.add(definePolicy('application.Claim.Beta', requireClaim('application:group', ['beta'])));
 *   registry.add(definePolicy('application.Custom.Weekday', { kind: 'custom', description: 'weekdays only', test: () => new Date().getDay() % 6 !== 0 }));
 *
 * and reference them from an endpoint with `authorize('application.Claim.Beta')`.
 *
 * The sample below lets an endpoint serve one organization's people only: the members of
 * the organization its route's `:organization` parameter names (a connection's sign-in
 * carries `application:organization`). A fixed one is `requireOrganization('acme')`.
 */
export const ApplicationPolicyNames = {
  /** Signed in through a connection of the organization the route's `:organization` names. */
  OrganizationMember: 'application.Organization.Member',
  /**
   * An administrator of the organization the route's `:organization` names: the organization
   * role `admin`, which only that organization's connection's `RoleMappings` grants.
   */
  OrganizationAdministrator: 'application.Organization.Administrator',
} as const;

export function applicationPolicies(
  authorization: AuthorizationSettings,
  /** `Administration:ManagePermission`. */
  manageConnectionsPermission?: string,
): PolicyRegistry {
  const registry = builtInPolicies(authorization, manageConnectionsPermission);
  registry.add(
    definePolicy(ApplicationPolicyNames.OrganizationMember, requireOrganization({ routeParameter: 'organization' })),
  );
  // A customer's own administrators administer their organization, never the deployment
  // (application.Role.Administrator is met only by the deployment's own sign-ins).
  registry.add(
    definePolicy(
      ApplicationPolicyNames.OrganizationAdministrator,
      requireOrganizationRole('admin', { routeParameter: 'organization' }),
    ),
  );
  // A policy can also ask how recently or how strongly the person signed in, in code
  // (requireRecentAuthentication(300), requireAuthenticationMethod('mfa'),
  // requireAuthenticationContext(...)) or from `Authorization:StepUp:<policy name>`:
  return withStepUp(registry, authorization);
}

/**
 * The configured step-up requirements (`Authorization:StepUp`) added to their policies,
 * after every policy is registered. Unknown names and bad values were refused at startup
 * (validated-configuration.ts); one still here is a programming error and throws.
 */
export function withStepUp(registry: PolicyRegistry, authorization: AuthorizationSettings): PolicyRegistry {
  for (const { policy, settings } of stepUpSections(authorization.StepUp)) {
    registry.strengthen(policy, ...stepUpRequirements(settings));
  }
  return registry;
}

/**
 * One start-up line per policy that asks something of the sign-in, saying what: the
 * operator sees the step-up in force, and notices one that is missing (a setting that
 * never reached the process is otherwise invisible).
 */
export function logStepUps(registry: PolicyRegistry, logger: Logger): void {
  for (const policy of registry.list()) {
    const needs = policy.requirements.flatMap((requirement) =>
      requirement.kind === 'authentication' ? [requirement.need] : [],
    );
    if (needs.length === 0) continue;
    const need = mergeNeeds(needs);
    logger.info({ policy: policy.name, need }, `step-up: ${policy.name} needs ${describeNeed(need).join(' and ')}`);
  }
}
