import { expect } from 'chai';
import {
  describeNeed,
  mergeNeeds,
  provenAuthentication,
  satisfiable,
  unmetAuthentication,
  withProvenAuthentication,
  type AuthenticationNeed,
  type ProvenAuthentication,
} from '../../../../src/domain/authorization/authentication-need.js';
import { userWith } from './principals.js';

const NOW_MS = 1_800_000_000_000;
const NOW_S = NOW_MS / 1000;
const proof = (fields: Partial<ProvenAuthentication>): ProvenAuthentication => ({
  time: undefined,
  methods: [],
  contextClass: undefined,
  ...fields,
});

describe('authentication-need', () => {
  describe('unmetAuthentication', () => {
    const cases: ReadonlyArray<[string, AuthenticationNeed, ProvenAuthentication, string[]]> = [
      ['asks nothing', {}, proof({}), []],
      ['age met at the limit', { maxAgeSeconds: 300 }, proof({ time: NOW_S - 300 }), []],
      ['age one second over', { maxAgeSeconds: 300 }, proof({ time: NOW_S - 301 }), ['max_age']],
      ['no recorded time fails any age', { maxAgeSeconds: 300 }, proof({}), ['max_age']],
      ['a time in the future counts as now', { maxAgeSeconds: 1 }, proof({ time: NOW_S + 60 }), []],
      ['one of the methods', { methods: ['mfa', 'hwk'] }, proof({ methods: ['pwd', 'hwk'] }), []],
      ['none of the methods', { methods: ['mfa'] }, proof({ methods: ['pwd', 'otp'] }), ['methods']],
      ['the class', { contextClasses: ['gold'] }, proof({ contextClass: 'gold' }), []],
      ['another class', { contextClasses: ['gold'] }, proof({ contextClass: 'silver' }), ['context_class']],
      ['no class', { contextClasses: ['gold'] }, proof({}), ['context_class']],
      [
        'everything, in a fixed order',
        { maxAgeSeconds: 60, methods: ['mfa'], contextClasses: ['gold'] },
        proof({ time: NOW_S - 61 }),
        ['max_age', 'methods', 'context_class'],
      ],
    ];
    for (const [label, need, proven, unmet] of cases) {
      it(label, () => expect(unmetAuthentication(need, proven, NOW_MS)).to.deep.equal(unmet));
    }
    it('fails the age when the time of the request is unknown (NaN)', () => {
      expect(unmetAuthentication({ maxAgeSeconds: 60 }, proof({ time: NOW_S }), NaN)).to.deep.equal(['max_age']);
    });
  });

  describe('mergeNeeds', () => {
    it('takes the shortest age and the values every list names', () => {
      expect(
        mergeNeeds([
          { maxAgeSeconds: 600, methods: ['mfa', 'hwk'] },
          { maxAgeSeconds: 300, methods: ['hwk', 'otp'], contextClasses: ['gold'] },
        ]),
      ).to.deep.equal({ maxAgeSeconds: 300, methods: ['hwk'], contextClasses: ['gold'] });
    });
    it('is unsatisfiable when two lists share no value', () => {
      const merged = mergeNeeds([{ methods: ['mfa'] }, { methods: ['hwk'] }]);
      expect(merged.methods).to.deep.equal([]);
      expect(satisfiable(merged)).to.equal(false);
      expect(satisfiable(mergeNeeds([{ methods: ['mfa'] }]))).to.equal(true);
    });
  });

  describe('describeNeed', () => {
    it('says the need in words, only the unmet parts when asked', () => {
      const need = { maxAgeSeconds: 300, methods: ['mfa', 'hwk'], contextClasses: ['gold'] };
      expect(describeNeed(need)).to.deep.equal([
        'a sign-in within the last 5 minutes',
        'a sign-in with multi-factor authentication (mfa) or a hardware key (hwk)',
        'a sign-in at the assurance level gold',
      ]);
      expect(describeNeed(need, ['methods'])).to.have.length(1);
      expect(describeNeed({ maxAgeSeconds: 7200 })).to.deep.equal(['a sign-in within the last 2 hours']);
      expect(describeNeed({ maxAgeSeconds: 90 })).to.deep.equal(['a sign-in within the last 90 seconds']);
    });
  });

  describe('the claims', () => {
    it('writes and reads back what the sign-in proved, replacing what the principal had', () => {
      const before = userWith(
        ['application:subject', 'u1'],
        ['application:amr', 'pwd'],
        ['application:auth_time', '1'],
      );
      const after = withProvenAuthentication(before, {
        time: NOW_S + 0.7,
        methods: ['otp', 'mfa', 'otp'],
        contextClass: 'gold',
      });
      expect(provenAuthentication(after)).to.deep.equal({ time: NOW_S, methods: ['otp', 'mfa'], contextClass: 'gold' });
      expect(after.claims.filter((claim) => claim.type === 'application:subject')).to.have.length(1);
    });
    it('reads nothing from a principal without them', () => {
      expect(provenAuthentication(userWith(['application:auth_time', 'soon']))).to.deep.equal(proof({}));
    });
  });
});
