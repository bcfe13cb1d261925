import type { Principal } from '../claims/principal.js';
import { GatehouseError } from '../errors.js';
import type { AuthorizationSettings } from '../settings/settings.js';
import type { AuthenticationNeed } from './authentication-need.js';
import { PolicyNames } from './policy-names.js';

/** One condition a policy puts on the principal. */
export type Requirement =
  | { kind: 'authenticated' }
  /** A claim of `claimType` whose value is one of `allowedValues`; empty = any value (claim present). */
  | { kind: 'claim'; claimType: string; allowedValues: readonly string[] }
  /**
   * Membership of an organization (`application:organization`, which only a connection's
   * sign-in carries): a fixed one, or the one a route parameter names (`/orgs/:organization/...`).
   */
  | { kind: 'organization'; organization: string }
  | { kind: 'organization'; routeParameter: string }
  /**
   * How, or how recently, the person signed in (`application:auth_time`, `amr`, `acr`).
   * Failing only these is not "denied" but "sign in again" (step-up: docs/step-up.md).
   */
  | { kind: 'authentication'; need: AuthenticationNeed }
  /** Application logic; `test` must be pure and must not throw for "no". */
  | { kind: 'custom'; description: string; test: (principal: Principal) => boolean };

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
export function requireOrganization(organization: string | { routeParameter: string }): Requirement {
  if (typeof organization !== 'string') return { kind: 'organization', routeParameter: organization.routeParameter };
  if (organization.trim() === '') {
    throw new GatehouseError('config.invalid_policy', 'An organization requirement needs an organization identifier.');
  }
  return { kind: 'organization', organization };
}

/**
 * A claim of `claimType` (normally `RoleClaimType`) with one of `roles`. An empty list is
 * refused, as ASP.NET's `RolesAuthorizationRequirement` does: as a claim requirement it
 * would mean "any role at all", which is never what a role check intends.
 */
export function requireRole(claimType: string, roles: readonly string[]): Requirement {
  return requireSomeValue('role', claimType, roles);
}

/** A claim of `claimType` (normally `PermissionClaimType`) with one of `permissions`; empty is refused. */
export function requirePermission(claimType: string, permissions: readonly string[]): Requirement {
  return requireSomeValue('permission', claimType, permissions);
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

function requireSomeValue(what: string, claimType: string, values: readonly string[]): Requirement {
  if (values.length === 0) {
    throw new GatehouseError(
      'config.invalid_policy',
      `A ${what} requirement on claim type "${claimType}" needs at least one allowed value.`,
    );
  }
  return requireClaim(claimType, values);
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
export function builtInPolicies(authorization: AuthorizationSettings): PolicyRegistry {
  const { RoleClaimType, PermissionClaimType, AdministratorRoles, ManageApplicationPermissions } = authorization;
  return new PolicyRegistry()
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
    );
}

function nobody(emptyKey: string): Requirement {
  return { kind: 'custom', description: `${emptyKey} is empty, so nobody qualifies`, test: () => false };
}
