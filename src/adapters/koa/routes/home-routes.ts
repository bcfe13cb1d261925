import type { IdentityProviders } from '../../../application/identity-providers.js';
import type { PolicyRegistry } from '../../../domain/authorization/policies.js';
import { PolicyNames } from '../../../domain/authorization/policy-names.js';
import { describeNeed, type AuthenticationNeed } from '../../../domain/authorization/authentication-need.js';
import {
  policyStandings,
  reachablePolicies,
  type PolicyStanding,
} from '../../../domain/authorization/list-satisfied-policies.js';
import { APPLICATION_CLAIM_PREFIX, ClaimTypes } from '../../../domain/claims/claim-types.js';
import { findClaim } from '../../../domain/claims/principal.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from './route-paths.js';

export interface HomeRouteDeps {
  policies: PolicyRegistry;
  /** A page names the provider the user signed in with by its display name. */
  providers: Pick<IdentityProviders, 'displayNameOf'>;
  /** Who the page's links answer depends on the posture: the fallback for unannotated ones, authentication for the rest. */
  posture: { authenticationEnabled: boolean; requireAuthenticatedUserByDefault: boolean };
  /** The time, for policies on the age of the sign-in. */
  now: () => number;
  /** Directory sync is on: the page links the person's organization's people. */
  peoplePage?: boolean;
}

/** `GET /`: the starter page. No metadata, so the fallback policy decides who sees it. */
export function homeRoutes(deps: HomeRouteDeps): Endpoint[] {
  return [
    {
      method: 'GET',
      path: RoutePaths.home,
      handler: async (ctx) => {
        const principal = ctx.state.principal;
        const now = deps.now();
        const standings = policyStandings(deps.policies, principal, now);
        const organization = principal && findClaim(principal, ClaimTypes.Organization);
        ctx.set('Cache-Control', 'no-store');
        await ctx.render('home', {
          principal,
          // People know a provider by its DisplayName; the scheme is a configuration name.
          providerName: (principal && deps.providers.displayNameOf(principal.scheme)) ?? principal?.scheme,
          claims: principal?.claims ?? [],
          applicationClaims:
            principal?.claims
              .filter((claim) => claim.type.startsWith(APPLICATION_CLAIM_PREFIX))
              .map((claim) =>
                claim.type === ClaimTypes.AuthTime ? { ...claim, readable: readableTime(claim.value) } : claim,
              ) ?? [],
          providerClaims: principal?.claims.filter((claim) => !claim.type.startsWith(APPLICATION_CLAIM_PREFIX)) ?? [],
          policies: standings.map(shownStanding),
          // The organization endpoint, for the person's own organization when they have one.
          organizationAppInfo:
            organization === undefined
              ? undefined
              : RoutePaths.organizationAppInfo.replace(':organization', encodeURIComponent(organization)),
          organization,
          organizationPeople:
            organization === undefined || !deps.peoplePage
              ? undefined
              : RoutePaths.organizationPeople.replace(':organization', encodeURIComponent(organization)),
          // The link is a convenience; /Admin checks the policy again whoever follows it, and
          // asks for a stronger sign-in first when only that is missing (step-up).
          showAdministration: reachablePolicies(deps.policies, principal, now).includes(PolicyNames.AdministratorRole),
          posture: deps.posture,
        });
      },
    },
  ];
}

/**
 * A policy's tag: met, met after a step-up or on the person's organization's route (with
 * what it needs, in a few words and in full as its title), or not met.
 */
function shownStanding(standing: PolicyStanding): { name: string; mark: string; note?: string; title: string } {
  switch (standing.standing) {
    case 'satisfied':
      return { name: standing.name, mark: 'satisfied', title: 'satisfied' };
    case 'step_up':
      return {
        name: standing.name,
        mark: 'partial',
        note: `needs ${fewWords(standing.need)}`,
        title: `satisfied after ${describeNeed(standing.need).join(' and ')}`,
      };
    case 'route':
      return {
        name: standing.name,
        mark: 'partial',
        note: 'needs an organization in the route',
        title: `satisfied on a route naming your organization (${Object.keys(standing.routeParameters)
          .map((name) => `:${name}`)
          .join(', ')})`,
      };
    case 'refused':
      return { name: standing.name, mark: 'off', title: 'not satisfied' };
  }
}

/** A need in a few words: "a recent second factor", "a recent sign-in", "a stronger sign-in". */
function fewWords(need: AuthenticationNeed): string {
  const recent = need.maxAgeSeconds !== undefined ? 'recent ' : '';
  if (need.methods !== undefined) return `a ${recent}second factor`;
  if (need.contextClasses !== undefined) return `a ${recent}stronger sign-in`;
  return 'a recent sign-in';
}

/** Epoch seconds as a person reads them (`2026-11-28 22:45:12 UTC`), shown beside the number policies compare. */
function readableTime(seconds: string): string | undefined {
  if (!/^\d{1,12}$/.test(seconds)) return undefined;
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
