import type { PolicyRegistry } from '../../../domain/authorization/policies.js';
import { satisfiedPolicies } from '../../../domain/authorization/list-satisfied-policies.js';
import { APPLICATION_CLAIM_PREFIX } from '../../../domain/claims/claim-types.js';
import type { Endpoint } from '../endpoint.js';

/** `GET /`: the starter page. No metadata, so the fallback policy decides who sees it. */
export function homeRoutes(deps: { policies: PolicyRegistry }): Endpoint[] {
  return [
    {
      method: 'GET',
      path: '/',
      handler: async (ctx) => {
        const principal = ctx.state.principal;
        ctx.set('Cache-Control', 'no-store');
        await ctx.render('home', {
          principal,
          claims: principal?.claims ?? [],
          applicationClaims: principal?.claims.filter((claim) => claim.type.startsWith(APPLICATION_CLAIM_PREFIX)) ?? [],
          providerClaims: principal?.claims.filter((claim) => !claim.type.startsWith(APPLICATION_CLAIM_PREFIX)) ?? [],
          policies: deps.policies.list().map((policy) => ({
            name: policy.name,
            satisfied: satisfiedPolicies(deps.policies, principal).includes(policy.name),
          })),
        });
      },
    },
  ];
}
