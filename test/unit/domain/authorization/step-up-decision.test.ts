import { expect } from 'chai';
import { decideEndpointAccess, type AccessContext } from '../../../../src/domain/authorization/decide-access.js';
import { authorize } from '../../../../src/domain/authorization/endpoint-metadata.js';
import { evaluatePolicy } from '../../../../src/domain/authorization/evaluate-policy.js';
import {
  PolicyRegistry,
  definePolicy,
  requireAuthenticationContext,
  requireAuthenticationMethod,
  requireRecentAuthentication,
  requireRole,
} from '../../../../src/domain/authorization/policies.js';
import { codeOf, userWith } from './principals.js';

const NOW_MS = 1_800_000_000_000;
const secondsAgo = (seconds: number) => String(NOW_MS / 1000 - seconds);
const admin = (...claims: Array<[string, string]>) => userWith(['application:role', 'Administrator'], ...claims);

const sensitive = definePolicy(
  'sensitive',
  requireRole('application:role', ['Administrator']),
  requireRecentAuthentication(300),
  requireAuthenticationMethod('mfa'),
);

describe('step-up in policy decisions', () => {
  it('allows a recent MFA sign-in', () => {
    const principal = admin(['application:auth_time', secondsAgo(10)], ['application:amr', 'mfa']);
    expect(evaluatePolicy(sensitive, principal, { routeParameters: {}, now: NOW_MS })).to.deep.equal({ allowed: true });
  });

  it('asks for a step-up, with the whole merged need, when only authentication requirements fail', () => {
    const principal = admin(['application:auth_time', secondsAgo(301)], ['application:amr', 'mfa']);
    expect(evaluatePolicy(sensitive, principal, { routeParameters: {}, now: NOW_MS })).to.deep.equal({
      allowed: false,
      authenticated: true,
      failed: ['a sign-in within the last 5 minutes'],
      stepUp: {
        need: { maxAgeSeconds: 300, methods: ['mfa'] },
        reasons: ['a sign-in within the last 5 minutes'],
      },
    });
  });

  it('refuses without a step-up when another requirement fails too', () => {
    const principal = userWith(['application:auth_time', secondsAgo(301)]);
    const decision = evaluatePolicy(sensitive, principal, { routeParameters: {}, now: NOW_MS });
    expect(decision).to.include({ allowed: false });
    expect(decision).not.to.have.property('stepUp');
  });

  it('fails an age requirement closed when the time of the request is not given', () => {
    const principal = admin(['application:auth_time', secondsAgo(0)], ['application:amr', 'mfa']);
    expect(evaluatePolicy(sensitive, principal).allowed).to.equal(false);
  });

  describe('decideEndpointAccess', () => {
    const registry = new PolicyRegistry()
      .add(sensitive)
      .add(definePolicy('gold', requireAuthenticationContext('gold')))
      .add(definePolicy('hardware', requireAuthenticationMethod('hwk')))
      .add(definePolicy('admin', requireRole('application:role', ['Administrator'])));
    const context: AccessContext = {
      requireAuthenticatedUserByDefault: true,
      authenticationEnabled: true,
      policies: registry,
    };
    const at = { routeParameters: {}, now: NOW_MS };

    it('is a step_up with the needs of every failing policy merged and the reasons in words', () => {
      const principal = admin(['application:auth_time', secondsAgo(3600)], ['application:amr', 'pwd']);
      expect(decideEndpointAccess(authorize('sensitive', 'gold'), principal, context, at)).to.deep.equal({
        outcome: 'step_up',
        failed: ['sensitive', 'gold'],
        need: { maxAgeSeconds: 300, methods: ['mfa'], contextClasses: ['gold'] },
        reasons: [
          'a sign-in within the last 5 minutes',
          'a sign-in with multi-factor authentication (mfa)',
          'a sign-in at the assurance level gold',
        ],
      });
    });

    it('forbids when one failing policy is not about the sign-in', () => {
      const principal = userWith(['application:amr', 'pwd']);
      expect(decideEndpointAccess(authorize('gold', 'admin'), principal, context, at)).to.deep.equal({
        outcome: 'forbid',
        failed: ['gold', 'admin'],
      });
    });

    it('forbids when no sign-in could meet the merged need (mfa and hwk lists share nothing)', () => {
      const principal = admin(['application:amr', 'pwd']);
      expect(decideEndpointAccess(authorize('sensitive', 'hardware'), principal, context, at)).to.deep.equal({
        outcome: 'forbid',
        failed: ['sensitive', 'hardware'],
      });
    });
  });

  describe('the builders', () => {
    it('refuse what no sign-in could mean', () => {
      expect(codeOf(() => requireRecentAuthentication(0))).to.equal('config.invalid_policy');
      expect(codeOf(() => requireRecentAuthentication(2.5))).to.equal('config.invalid_policy');
      expect(codeOf(() => requireAuthenticationMethod())).to.equal('config.invalid_policy');
      expect(codeOf(() => requireAuthenticationContext(''))).to.equal('config.invalid_policy');
    });
    it('strengthen a registered policy only', () => {
      const registry = new PolicyRegistry().add(definePolicy('p'));
      expect(registry.asksForAuthentication).to.equal(false);
      registry.strengthen('p', requireAuthenticationMethod('mfa'));
      expect(registry.asksForAuthentication).to.equal(true);
      expect(registry.get('p')?.requirements.at(-1)).to.deep.equal({
        kind: 'authentication',
        need: { methods: ['mfa'] },
      });
      expect(codeOf(() => registry.strengthen('q', requireAuthenticationMethod('mfa')))).to.equal(
        'config.unknown_policy',
      );
    });
  });
});
