import { ClaimTypes } from '../claims/claim-types.js';
import { claimValues, speaksForDeployment, type Principal } from '../claims/principal.js';
import {
  describeNeed,
  mergeNeeds,
  provenAuthentication,
  unmetAuthentication,
  type AuthenticationNeed,
} from './authentication-need.js';
import type { Policy, Requirement } from './policies.js';

/**
 * The outcome of one policy, with reasons: `failed` lists the descriptions of the
 * requirements that did not hold (ASP.NET's `AuthorizationFailure.FailedRequirements`).
 * `stepUp` is there when only authentication requirements failed: a new sign-in meeting
 * `need` (every authentication requirement of the policy, merged) would pass; `reasons`
 * say what is missing, in words.
 */
export type AuthorizationDecision =
  { allowed: true } | { allowed: false; failed: string[]; authenticated: boolean; stepUp?: StepUp };

export interface StepUp {
  need: AuthenticationNeed;
  reasons: string[];
}

const AUTHENTICATED_USER = 'authenticated user';

/** What is being reached, as far as requirements may look at it: the route's parameters. */
export interface AuthorizationResource {
  routeParameters: Readonly<Record<string, string>>;
  /**
   * The time of the request (milliseconds since the epoch), for requirements on the age of
   * the sign-in; without it they do not hold (closed).
   */
  now?: number;
}

const NO_RESOURCE: AuthorizationResource = { routeParameters: {} };

/**
 * Evaluates `policy` for `principal` (undefined = anonymous). "Denied" is a value, never
 * an exception; an exception from a custom requirement is a bug and propagates.
 * An anonymous caller fails the authenticated-user baseline and nothing else is evaluated:
 * every named policy sits on top of that baseline, and custom tests expect a principal.
 */
export function evaluatePolicy(
  policy: Policy,
  principal: Principal | undefined,
  resource: AuthorizationResource = NO_RESOURCE,
): AuthorizationDecision {
  if (principal === undefined) return { allowed: false, failed: [AUTHENTICATED_USER], authenticated: false };
  const failing = policy.requirements.filter((requirement) => !isSatisfied(requirement, principal, resource));
  if (failing.length === 0) return { allowed: true };
  const failed = failing.map(describeRequirement);
  if (!failing.every((requirement) => requirement.kind === 'authentication')) {
    return { allowed: false, failed, authenticated: true };
  }
  const needs = policy.requirements.flatMap((requirement) =>
    requirement.kind === 'authentication' ? [requirement.need] : [],
  );
  const need = mergeNeeds(needs);
  const unmet = unmetAuthentication(need, provenAuthentication(principal), resource.now ?? NaN);
  return { allowed: false, failed, authenticated: true, stepUp: { need, reasons: describeNeed(need, unmet) } };
}

/** A requirement in words, for logs and the access-denied reason list. */
export function describeRequirement(requirement: Requirement): string {
  switch (requirement.kind) {
    case 'authenticated':
      return AUTHENTICATED_USER;
    case 'claim': {
      const claim =
        requirement.allowedValues.length === 0
          ? `claim ${requirement.claimType} present`
          : `claim ${requirement.claimType} in [${requirement.allowedValues.join(', ')}]`;
      return requirement.deploymentOnly ? `${claim} from the deployment's own sign-in` : claim;
    }
    case 'organization': {
      const member =
        'organization' in requirement
          ? `member of the organization ${requirement.organization}`
          : `member of the organization the route names (:${requirement.routeParameter})`;
      return requirement.grant
        ? `${member} with ${requirement.grant.claimType} in [${requirement.grant.values.join(', ')}]`
        : member;
    }
    case 'authentication':
      return describeNeed(requirement.need).join(' and ');
    case 'custom':
      return requirement.description;
  }
}

function isSatisfied(requirement: Requirement, principal: Principal, resource: AuthorizationResource): boolean {
  switch (requirement.kind) {
    case 'authenticated':
      return true;
    case 'claim':
      if (requirement.deploymentOnly && !speaksForDeployment(principal)) return false;
      // Type and value compare exactly (ordinal): `administrator` is not `Administrator`.
      return hasClaim(principal, requirement.claimType, requirement.allowedValues);
    case 'organization': {
      // A route without the parameter names no organization: nobody is its member (closed).
      const wanted =
        'organization' in requirement ? requirement.organization : resource.routeParameters[requirement.routeParameter];
      if (wanted === undefined || wanted === '') return false;
      // One organization per sign-in: its roles are the roles in that organization, so the two are read together.
      const organizations = claimValues(principal, ClaimTypes.Organization);
      if (organizations.length !== 1 || organizations[0] !== wanted) return false;
      return (
        requirement.grant === undefined || hasClaim(principal, requirement.grant.claimType, requirement.grant.values)
      );
    }
    case 'authentication':
      return (
        resource.now !== undefined &&
        unmetAuthentication(requirement.need, provenAuthentication(principal), resource.now).length === 0
      );
    case 'custom':
      return requirement.test(principal);
  }
}

function hasClaim(principal: Principal, type: string, allowedValues: readonly string[]): boolean {
  return principal.claims.some(
    (claim) => claim.type === type && (allowedValues.length === 0 || allowedValues.includes(claim.value)),
  );
}
