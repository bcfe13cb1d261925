import { ClaimTypes } from '../claims/claim-types.js';
import type { Principal } from '../claims/principal.js';
import { GatehouseError } from '../errors.js';
import type { AuthorizationSettings } from '../settings/settings.js';
import type { AuthenticationNeed } from './authentication-need.js';
import { PolicyNames } from './policy-names.js';

/** One condition a policy puts on the principal. */
export type Requirement =
  | { kind: 'authenticated' }
  /**
   * A claim of `claimType` whose value is one of `allowedValues`; empty = any value (claim
   * present). With `deploymentOnly` (every `requireRole` and `requirePermission`), only a
   * sign-in that speaks for the deployment counts: one through the deployment's own
   * providers, never a customer organization's connection (`speaksForDeployment`).
   */
  | { kind: 'claim'; claimType: string; allowedValues: readonly string[]; deploymentOnly?: boolean }
  /**
   * Membership of an organization (`application:organization`, which only a connection's
   * sign-in carries): a fixed one, or the one a route parameter names (`/orgs/:organization/...`);
   * with `grant`, also one of its organization roles or permissions, read with it.
   */
  | { kind: 'organization'; organization: string; grant?: OrganizationGrant }
  | { kind: 'organization'; routeParameter: string; grant?: OrganizationGrant }
  /**
   * How, or how recently, the person signed in (`application:auth_time`, `amr`, `acr`).
   * Failing only these is not "denied" but "sign in again" (step-up: docs/step-up.md).
   */
  | { kind: 'authentication'; need: AuthenticationNeed }
  /** Application logic; `test` must be pure and must not throw for "no". */
  | { kind: 'custom'; description: string; test: (principal: Principal) => boolean };

/** A role or permission within the organization (`application:organization_role` / `_permission`): one of `values`. */
export interface OrganizationGrant {
  claimType: typeof ClaimTypes.OrganizationRole | typeof ClaimTypes.OrganizationPermission;
  values: readonly string[];
}

/** Which organization a requirement is about: a fixed one, or the one a route parameter names. */
export type OrganizationInScope = string | { organization: string } | { routeParameter: string };

/** A named set of requirements; all of them must hold. */
export interface Policy {
  name: string;
  requirements: readonly Requirement[];
}

/** The authenticated-user baseline every named policy starts from (docs: Authorization rules, 5). */
export const authenticatedUser: Requirement = { kind: 'authenticated' };

/** A claim requirement; with no `allowedValues`, any value of `claimType` satisfies it. */
export function requireClaim(claimType: string, allowedValues: readonly string[] = []): Requirement {
  return { kind: 'claim', claimType, allowedValues: [...allowedValues] };
}

/**
 * Members of an organization: `requireOrganization('acme')` for a fixed one, or
 * `requireOrganization({ routeParameter: 'organization' })` for the one the route names.
 * The claim is set by Gatehouse from the connection that signed the user in, never taken
 * from a provider, so a customer's identity provider cannot make its users members of
 * another customer.
 */
export function requireOrganization(organization: OrganizationInScope): Requirement {
  return organizationRequirement(organization);
}

/**
 * A role within the organization (`application:organization_role`, which Gatehouse sets
 * only from the connection's `RoleMappings`), in the organization named:
 * `requireOrganizationRole('admin', { routeParameter: 'organization' })` for the one the
 * route names, `requireOrganizationRole(['admin', 'owner'], 'acme')` for a fixed one.
 */
export function requireOrganizationRole(
  roles: string | readonly string[],
  organization: OrganizationInScope,
): Requirement {
  const values = someValues('organization-role', typeof roles === 'string' ? [roles] : roles);
  return organizationRequirement(organization, { claimType: ClaimTypes.OrganizationRole, values });
}

/** A permission within the organization (`application:organization_permission`, from `PermissionMappings`). */
export function requireOrganizationPermission(
  permissions: string | readonly string[],
  organization: OrganizationInScope,
): Requirement {
  const values = someValues('organization-permission', typeof permissions === 'string' ? [permissions] : permissions);
  return organizationRequirement(organization, { claimType: ClaimTypes.OrganizationPermission, values });
}

function organizationRequirement(organization: OrganizationInScope, grant?: OrganizationGrant): Requirement {
  const extra = grant ? { grant } : {};
  if (typeof organization === 'object' && 'routeParameter' in organization) {
    return { kind: 'organization', routeParameter: organization.routeParameter, ...extra };
  }
  const fixed = typeof organization === 'string' ? organization : organization.organization;
  if (fixed.trim() === '') {
    throw new GatehouseError('config.invalid_policy', 'An organization requirement needs an organization identifier.');
  }
  return { kind: 'organization', organization: fixed, ...extra };
}

/**
 * A claim of `claimType` (normally `RoleClaimType`) with one of `roles`, from a sign-in
 * that speaks for the deployment: a customer organization's connection cannot meet it,
 * whatever its provider sends (use `requireOrganizationRole` for its roles). An empty list
 * is refused, as ASP.NET's `RolesAuthorizationRequirement` does: as a claim requirement it
 * would mean "any role at all", which is never what a role check intends.
 */
export function requireRole(claimType: string, roles: readonly string[]): Requirement {
  return { ...requireSomeValue('role', claimType, roles), deploymentOnly: true };
}

/** A claim of `claimType` (normally `PermissionClaimType`) with one of `permissions`, for the deployment (as `requireRole`); empty is refused. */
export function requirePermission(claimType: string, permissions: readonly string[]): Requirement {
  return { ...requireSomeValue('permission', claimType, permissions), deploymentOnly: true };
}

/** A sign-in at most `seconds` old (OpenID `max_age`): sensitive actions ask for a recent one. */
export function requireRecentAuthentication(seconds: number): Requirement {
  if (!Number.isInteger(seconds) || seconds <= 0) {
    throw new GatehouseError(
      'config.invalid_policy',
      'A recent-authentication requirement needs a positive whole number of seconds.',
    );
  }
  return { kind: 'authentication', need: { maxAgeSeconds: seconds } };
}

/** A sign-in that used at least one of `methods` (`amr` values, RFC 8176: `mfa`, `hwk`, `otp` ...); empty is refused. */
export function requireAuthenticationMethod(...methods: string[]): Requirement {
  return { kind: 'authentication', need: { methods: someValues('authentication-method', methods) } };
}

/** A sign-in whose context class (`acr`) is one of `classes`; empty is refused. */
export function requireAuthenticationContext(...classes: string[]): Requirement {
  return { kind: 'authentication', need: { contextClasses: someValues('authentication-context', classes) } };
}

function someValues(what: string, values: readonly string[]): string[] {
  if (values.length === 0 || values.some((value) => value.trim() === '')) {
    throw new GatehouseError('config.invalid_policy', `A ${what} requirement needs at least one non-empty value.`);
  }
  return [...new Set(values)];
}

function requireSomeValue(
  what: string,
  claimType: string,
  values: readonly string[],
): Extract<Requirement, { kind: 'claim' }> {
  if (values.length === 0) {
    throw new GatehouseError(
      'config.invalid_policy',
      `A ${what} requirement on claim type "${claimType}" needs at least one allowed value.`,
    );
  }
  return { kind: 'claim', claimType, allowedValues: [...values] };
}

/**
 * A named policy: the authenticated-user baseline plus `requirements`. The baseline is
 * added here so an application policy cannot forget it.
 */
export function definePolicy(name: string, ...requirements: Requirement[]): Policy {
  const rest = requirements.filter((requirement) => requirement.kind !== 'authenticated');
  return { name, requirements: [authenticatedUser, ...rest] };
}

/**
 * The named policies of the application. The built-in three come from `builtInPolicies`;
 * applications add theirs in one place (`src/bootstrap/policies.ts`) with
 * `registry.add(definePolicy(name, ...requirements))`, never from route modules.
 */
export class PolicyRegistry {
  readonly #policies = new Map<string, Policy>();

  /** Registers `policy`; a second policy with the same name is a configuration error. */
  add(policy: Policy): this {
    if (policy.name.trim() === '')
      throw new GatehouseError('config.invalid_policy', 'A policy needs a non-empty name.');
    if (this.#policies.has(policy.name)) {
      throw new GatehouseError(
        'config.duplicate_policy',
        `The authorization policy "${policy.name}" is registered twice.`,
      );
    }
    this.#policies.set(policy.name, policy);
    return this;
  }

  /**
   * Adds `requirements` to the registered policy `name` (configuration's
   * `Authorization:StepUp:<policy>` on a built-in or application policy).
   */
  strengthen(name: string, ...requirements: Requirement[]): this {
    const policy = this.#policies.get(name);
    if (policy === undefined) {
      throw new GatehouseError('config.unknown_policy', `The authorization policy "${name}" is not registered.`);
    }
    this.#policies.set(name, { name, requirements: [...policy.requirements, ...requirements] });
    return this;
  }

  /** True when some registered policy asks something of the sign-in (only then does authorization read the clock). */
  get asksForAuthentication(): boolean {
    return this.list().some((policy) =>
      policy.requirements.some((requirement) => requirement.kind === 'authentication'),
    );
  }

  get(name: string): Policy | undefined {
    return this.#policies.get(name);
  }

  /** Every registered policy, in registration order. */
  list(): Policy[] {
    return [...this.#policies.values()];
  }
}

/**
 * The three built-in policies, read from `ProjectTemplate:Authorization`. An empty
 * `AdministratorRoles` or `ManageApplicationPermissions` makes its policy unsatisfiable
 * (fail closed) rather than "any role" or a startup crash.
 */
export function builtInPolicies(
  authorization: AuthorizationSettings,
  /** `Administration:ManagePermission`: what the ManageConnections policy asks. */
  manageConnectionsPermission = 'connections.manage',
): PolicyRegistry {
  const { RoleClaimType, PermissionClaimType, AdministratorRoles, ManageApplicationPermissions } = authorization;
  return (
    new PolicyRegistry()
      .add(definePolicy(PolicyNames.AuthenticatedUser))
      .add(
        definePolicy(
          PolicyNames.AdministratorRole,
          AdministratorRoles.length > 0
            ? requireRole(RoleClaimType, AdministratorRoles)
            : nobody('ProjectTemplate:Authorization:AdministratorRoles'),
        ),
      )
      .add(
        definePolicy(
          PolicyNames.ManageApplicationPermission,
          ManageApplicationPermissions.length > 0
            ? requirePermission(PermissionClaimType, ManageApplicationPermissions)
            : nobody('ProjectTemplate:Authorization:ManageApplicationPermissions'),
        ),
      )
      // The administration API's (docs/connections.md): the deployment's staff with the permission.
      .add(
        definePolicy(
          PolicyNames.ManageConnections,
          requirePermission(PermissionClaimType, [manageConnectionsPermission]),
        ),
      )
  );
}

function nobody(emptyKey: string): Requirement {
  return { kind: 'custom', description: `${emptyKey} is empty, so nobody qualifies`, test: () => false };
}
