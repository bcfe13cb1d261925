import { expect } from 'chai';
import { decideEndpointAccess } from '../../../../src/domain/authorization/decide-access.js';
import { authorize } from '../../../../src/domain/authorization/endpoint-metadata.js';
import { describeRequirement, evaluatePolicy } from '../../../../src/domain/authorization/evaluate-policy.js';
import {
  builtInPolicies,
  definePolicy,
  requireOrganization,
  requireRole,
} from '../../../../src/domain/authorization/policies.js';
import type { Principal } from '../../../../src/domain/claims/principal.js';
import { codeOf, starterAuthorization, userWith } from './principals.js';

const globexMember = userWith(
  ['application:subject', 'u1'],
  ['application:organization', 'globex'],
  ['application:connection', 'Globex'],
);
const acmeMember = userWith(['application:subject', 'u2'], ['application:organization', 'acme']);
/** Signed in through the deployment's own provider: no organization. */
const ownUser = userWith(['application:subject', 'u3'], ['application:role', 'Administrator']);
/** A claim of another type carrying the organization's identifier proves nothing. */
const lookalike = userWith(['application:subject', 'u4'], ['organization', 'globex'], ['application:group', 'globex']);

const fixed = definePolicy('application.Organization.Globex', requireOrganization('globex'));
const byRoute = definePolicy(
  'application.Organization.Member',
  requireOrganization({ routeParameter: 'organization' }),
);

describe('requireOrganization', () => {
  describe('a fixed organization', () => {
    const cases: ReadonlyArray<[label: string, principal: Principal | undefined, allowed: boolean]> = [
      ['its member', globexMember, true],
      ["another organization's member", acmeMember, false],
      ["someone of the deployment's own provider", ownUser, false],
      ['the identifier in a claim of another type', lookalike, false],
      ['anonymous', undefined, false],
    ];
    for (const [label, principal, allowed] of cases) {
      it(`${allowed ? 'admits' : 'refuses'} ${label}`, () => {
        expect(evaluatePolicy(fixed, principal).allowed).to.equal(allowed);
      });
    }

    it('compares exactly (an organization identifier is not case-folded)', () => {
      expect(evaluatePolicy(definePolicy('p', requireOrganization('Globex')), globexMember).allowed).to.equal(false);
    });

    it('refuses to be defined without an organization', () => {
      expect(codeOf(() => requireOrganization(''))).to.equal('config.invalid_policy');
      expect(codeOf(() => requireOrganization('  '))).to.equal('config.invalid_policy');
    });
  });

  describe('the organization a route parameter names', () => {
    const cases: ReadonlyArray<
      [label: string, principal: Principal, parameters: Record<string, string>, allowed: boolean]
    > = [
      ['its member at its own route', globexMember, { organization: 'globex' }, true],
      ["its member at another organization's route", globexMember, { organization: 'acme' }, false],
      ["another member at that organization's route", acmeMember, { organization: 'acme' }, true],
      ["someone of the deployment's own provider", ownUser, { organization: 'globex' }, false],
      ['a route without the parameter (nobody is its member)', globexMember, {}, false],
      ['a route naming it under another parameter', globexMember, { org: 'globex' }, false],
      ['an empty parameter', globexMember, { organization: '' }, false],
      [
        'an empty parameter, even for a principal with an empty organization',
        userWith(['application:organization', '']),
        { organization: '' },
        false,
      ],
    ];
    for (const [label, principal, routeParameters, allowed] of cases) {
      it(`${allowed ? 'admits' : 'refuses'} ${label}`, () => {
        expect(evaluatePolicy(byRoute, principal, { routeParameters }).allowed).to.equal(allowed);
      });
    }

    it('refuses when no route is given at all', () => {
      expect(evaluatePolicy(byRoute, globexMember).allowed).to.equal(false);
    });
  });

  it('says which organization it wanted in a refusal', () => {
    const [, fixedRequirement] = fixed.requirements;
    const [, routeRequirement] = byRoute.requirements;
    expect(fixedRequirement && describeRequirement(fixedRequirement)).to.equal('member of the organization globex');
    expect(routeRequirement && describeRequirement(routeRequirement)).to.equal(
      'member of the organization the route names (:organization)',
    );
    expect(evaluatePolicy(fixed, acmeMember)).to.deep.equal({
      allowed: false,
      authenticated: true,
      failed: ['member of the organization globex'],
    });
  });

  it("is decided at an endpoint with the route's parameters", () => {
    const policies = builtInPolicies(starterAuthorization).add(byRoute);
    const context = { policies, requireAuthenticatedUserByDefault: true, authenticationEnabled: true };
    const metadata = authorize(byRoute.name);
    const at = (organization: string) => ({ routeParameters: { organization } });
    expect(decideEndpointAccess(metadata, globexMember, context, at('globex'))).to.deep.equal({ outcome: 'allow' });
    expect(decideEndpointAccess(metadata, globexMember, context, at('acme'))).to.deep.equal({
      outcome: 'forbid',
      failed: [byRoute.name],
    });
    expect(decideEndpointAccess(metadata, globexMember, context)).to.deep.equal({
      outcome: 'forbid',
      failed: [byRoute.name],
    });
    expect(decideEndpointAccess(metadata, undefined, context, at('globex'))).to.deep.equal({ outcome: 'challenge' });
  });

  it('combines with other requirements: every one must hold', () => {
    const adminOfGlobex = userWith(['application:organization', 'globex'], ['application:role', 'Administrator']);
    const strict = definePolicy('p', requireOrganization('globex'), requireRole('application:role', ['Administrator']));
    expect(evaluatePolicy(strict, adminOfGlobex).allowed).to.equal(true);
    expect(evaluatePolicy(strict, globexMember).allowed).to.equal(false);
    expect(evaluatePolicy(strict, ownUser).allowed).to.equal(false);
  });
});
