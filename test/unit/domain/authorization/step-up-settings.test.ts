import { expect } from 'chai';
import {
  authnContextMethodProblems,
  stepUpProblems,
  stepUpRequirements,
  stepUpSections,
} from '../../../../src/domain/authorization/step-up-settings.js';
import type { StepUpSettings } from '../../../../src/domain/settings/settings.js';

const POLICIES = ['application.Role.Administrator', 'application.AuthenticatedUser'];
const keysOf = (stepUp: Record<string, StepUpSettings>) =>
  stepUpProblems(stepUp, POLICIES).map((problem) => problem.key);
const ROOT = 'ProjectTemplate:Authorization:StepUp';

describe('Authorization:StepUp rules', () => {
  it('accepts a section that asks something of a registered policy', () => {
    expect(
      keysOf({
        'application.Role.Administrator': { MaxAuthenticationAgeSeconds: 600, AuthenticationMethods: ['mfa'] },
      }),
    ).to.deep.equal([]);
  });
  it('names an unknown policy', () => {
    expect(keysOf({ 'application.Role.Admin': { MaxAuthenticationAgeSeconds: 60 } })).to.deep.equal([
      `${ROOT}:application.Role.Admin`,
    ]);
  });
  for (const age of [0, -5, 1.5]) {
    it(`refuses the age ${age}`, () => {
      expect(keysOf({ 'application.AuthenticatedUser': { MaxAuthenticationAgeSeconds: age } })).to.deep.equal([
        `${ROOT}:application.AuthenticatedUser:MaxAuthenticationAgeSeconds`,
      ]);
    });
  }
  it('refuses an empty list, or an empty value in one', () => {
    expect(
      keysOf({
        'application.AuthenticatedUser': { AuthenticationMethods: [], AuthenticationContextClasses: ['gold', ' '] },
      }),
    ).to.deep.equal([
      `${ROOT}:application.AuthenticatedUser:AuthenticationMethods`,
      `${ROOT}:application.AuthenticatedUser:AuthenticationContextClasses`,
    ]);
  });
  it('refuses a section that asks nothing', () => {
    expect(keysOf({ 'application.AuthenticatedUser': {} })).to.deep.equal([`${ROOT}:application.AuthenticatedUser`]);
  });
  it('turns a section into one requirement per key', () => {
    expect(
      stepUpRequirements({
        MaxAuthenticationAgeSeconds: 60,
        AuthenticationMethods: ['mfa'],
        AuthenticationContextClasses: ['c'],
      }),
    ).to.deep.equal([
      { kind: 'authentication', need: { maxAgeSeconds: 60 } },
      { kind: 'authentication', need: { methods: ['mfa'] } },
      { kind: 'authentication', need: { contextClasses: ['c'] } },
    ]);
  });
  describe('a section named otherwise, its policy in its Policy key (the environment spelling)', () => {
    it('strengthens the policy its Policy key names', () => {
      const stepUp = { AdminPages: { Policy: 'application.Role.Administrator', MaxAuthenticationAgeSeconds: 600 } };
      expect(keysOf(stepUp)).to.deep.equal([]);
      expect(stepUpSections(stepUp)).to.deep.equal([
        { name: 'AdminPages', policy: 'application.Role.Administrator', settings: stepUp.AdminPages },
      ]);
    });
    it('names the Policy key of a policy nobody registered, or of an empty one', () => {
      expect(
        keysOf({
          AdminPages: { Policy: 'application.Role.Admin', MaxAuthenticationAgeSeconds: 60 },
          Empty: { Policy: '', MaxAuthenticationAgeSeconds: 60 },
        }),
      ).to.deep.equal([`${ROOT}:AdminPages:Policy`, `${ROOT}:Empty:Policy`]);
    });
    it('refuses the policy name with _ for its dots, and says which Policy to set, never guessing it', () => {
      const problems = stepUpProblems(
        { application_Role_Administrator: { MaxAuthenticationAgeSeconds: 60 } },
        POLICIES,
      );
      expect(problems.map((problem) => problem.key)).to.deep.equal([`${ROOT}:application_Role_Administrator`]);
      expect(problems[0]?.message).to.contain(
        `set ${ROOT}:application_Role_Administrator:Policy to application.Role.Administrator`,
      );
    });
    it('refuses two sections for one policy (which one would count?)', () => {
      expect(
        keysOf({
          'application.Role.Administrator': { MaxAuthenticationAgeSeconds: 600 },
          AdminPages: { Policy: 'application.Role.Administrator', AuthenticationMethods: ['mfa'] },
        }),
      ).to.deep.equal([`${ROOT}:AdminPages:Policy`]);
    });
  });
  it('refuses a SAML class mapped to no amr value', () => {
    expect(
      authnContextMethodProblems({ 'urn:a': 'mfa otp', 'urn:b': '  ' }).map((problem) => problem.key),
    ).to.deep.equal(['ProjectTemplate:Authentication:AuthnContextClassMethods:urn:b']);
  });
});
