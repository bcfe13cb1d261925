import { expect } from 'chai';
import { DOMParser } from '@xmldom/xmldom';
import { AUTHN_METHODS_REFERENCES, provenByAssertion } from '../../../src/adapters/saml/authn-statement.js';
import {
  BUILT_IN_AUTHN_CONTEXT_METHODS,
  authnContextMethods,
} from '../../../src/domain/claims/authn-context-methods.js';

const NS = 'urn:oasis:names:tc:SAML:2.0:assertion';
const assertion = (statement: string) =>
  new DOMParser().parseFromString(`<saml:Assertion xmlns:saml="${NS}">${statement}</saml:Assertion>`, 'text/xml')
    .documentElement as unknown as Element;
const statement = (instant: string, classRef: string) =>
  `<saml:AuthnStatement AuthnInstant="${instant}"><saml:AuthnContext><saml:AuthnContextClassRef>${classRef}</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`;
const PPT = 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport';
const MULTIPLE = 'http://schemas.microsoft.com/claims/multipleauthn';

describe('what a SAML assertion proves of the authentication (provenByAssertion)', () => {
  it('reads AuthnInstant and the class, mapped to amr by the table', () => {
    expect(
      provenByAssertion(assertion(statement('2026-11-26T18:00:00.500Z', PPT)), {}, BUILT_IN_AUTHN_CONTEXT_METHODS),
    ).to.deep.equal({
      time: Date.parse('2026-11-26T18:00:00Z') / 1000,
      methods: ['pwd'],
      contextClass: PPT,
    });
  });
  it('adds the methods Entra ID lists in its authnmethodsreferences attribute', () => {
    const proven = provenByAssertion(
      assertion(statement('2026-11-26T18:00:00Z', PPT)),
      { [AUTHN_METHODS_REFERENCES]: [MULTIPLE] },
      BUILT_IN_AUTHN_CONTEXT_METHODS,
    );
    expect(proven.methods).to.deep.equal(['pwd', 'mfa']);
  });
  it('takes configured rows over built-in ones, and an unknown class stands for no method', () => {
    const table = authnContextMethods({ [PPT]: 'pwd otp', 'urn:example:gold': 'hwk mfa' });
    expect(provenByAssertion(assertion(statement('2026-11-26T18:00:00Z', PPT)), {}, table).methods).to.deep.equal([
      'pwd',
      'otp',
    ]);
    expect(
      provenByAssertion(assertion(statement('2026-11-26T18:00:00Z', 'urn:example:gold')), {}, table).methods,
    ).to.deep.equal(['hwk', 'mfa']);
    expect(provenByAssertion(assertion(statement('2026-11-26T18:00:00Z', 'urn:unknown')), {}, table))
      .to.include({ contextClass: 'urn:unknown' })
      .and.have.property('methods')
      .that.deep.equals([]);
  });
  it('has no time when the instant is missing or not a UTC dateTime', () => {
    for (const instant of ['', 'yesterday', '2026-11-26T18:00:00+01:00']) {
      expect(provenByAssertion(assertion(statement(instant, PPT)), {}, BUILT_IN_AUTHN_CONTEXT_METHODS).time).to.equal(
        undefined,
      );
    }
    expect(provenByAssertion(assertion(''), {}, BUILT_IN_AUTHN_CONTEXT_METHODS)).to.deep.equal({
      time: undefined,
      methods: [],
      contextClass: undefined,
    });
  });
});
