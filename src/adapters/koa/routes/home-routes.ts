import type { IdentityProviders } from '../../../application/identity-providers.js';
import type { PolicyRegistry } from '../../../domain/authorization/policies.js';
import { PolicyNames } from '../../../domain/authorization/policy-names.js';
import { reachablePolicies, satisfiedPolicies } from '../../../domain/authorization/list-satisfied-policies.js';
import { APPLICATION_CLAIM_PREFIX, ClaimTypes } from '../../../domain/claims/claim-types.js';
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
        const satisfied = satisfiedPolicies(deps.policies, principal, now);
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
          policies: deps.policies.list().map((policy) => ({
            name: policy.name,
            satisfied: satisfied.includes(policy.name),
          })),
          // The link is a convenience; /Admin checks the policy again whoever follows it, and
          // asks for a stronger sign-in first when only that is missing (step-up).
          showAdministration: reachablePolicies(deps.policies, principal, now).includes(PolicyNames.AdministratorRole),
          posture: deps.posture,
        });
      },
    },
  ];
}

/** Epoch seconds as a person reads them (`2026-11-28 22:45:12 UTC`), shown beside the number policies compare. */
function readableTime(seconds: string): string | undefined {
  if (!/^\d{1,12}$/.test(seconds)) return undefined;
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
