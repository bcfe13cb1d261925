import { expect } from 'chai';
import { assertionXml, responseXml } from '../../../scripts/saml/saml-response.js';
import { checkAssertion, type Expectations } from '../../../src/adapters/saml/assertion-checks.js';
import { checkResponseShape } from '../../../src/adapters/saml/response-shape.js';
import { parseSamlXml } from '../../../src/adapters/saml/saml-xml.js';

const NOW = Date.UTC(2026, 5, 1, 12);
const expected: Expectations = {
  issuer: 'https://idp.example',
  audience: 'https://sp.example',
  acsUrl: 'https://sp.example/Saml2/Acs',
  requestId: '_request',
  now: NOW,
  clockSkewMs: 3 * 60_000,
};

/** The checks on a response whose parts are taken as signed (the signature is SignedParts' business). */
function check(
  assertion: Partial<Parameters<typeof assertionXml>[0]> = {},
  response: Partial<Parameters<typeof responseXml>[0]> = {},
) {
  const xml = responseXml(
    {
      issuer: expected.issuer,
      destination: expected.acsUrl,
      inResponseTo: expected.requestId,
      issuedAt: NOW,
      ...response,
    },
    assertionXml({
      issuer: expected.issuer,
      nameId: 'ada',
      audiences: [expected.audience],
      recipient: expected.acsUrl,
      inResponseTo: expected.requestId,
      issuedAt: NOW,
      ...assertion,
    }),
  );
  const shape = checkResponseShape(parseSamlXml(xml));
  return checkAssertion(
    { response: shape.response, assertion: shape.assertion, assertionSigned: true, signers: [] },
    shape.response,
    expected,
  );
}

const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return 'accepted';
};

describe('checkAssertion (the checks samlify leaves to its caller)', () => {
  it('accepts a response that answers this request, for this audience, delivered here, in time', () => {
    const checked = check();
    expect(checked.issuer).to.equal(expected.issuer);
    expect(checked.acceptableUntil).to.equal(NOW + 5 * 60_000 + expected.clockSkewMs);
  });

  const cases: Array<[string, () => unknown, string]> = [
    [
      'the assertion issued by another entity',
      () => check({ issuer: 'https://other-idp.example' }),
      'idp.issuer_mismatch',
    ],
    [
      'the Response issued by another entity',
      () => check({}, { issuer: 'https://other-idp.example' }),
      'idp.issuer_mismatch',
    ],
    [
      'the Response answering another request',
      () => check({}, { inResponseTo: '_other' }),
      'idp.in_response_to_mismatch',
    ],
    [
      'Conditions over, beyond the skew',
      () => check({ notBefore: NOW - 20 * 60_000, notOnOrAfter: NOW - 4 * 60_000 }),
      'idp.assertion_expired',
    ],
    [
      'Conditions over, within the skew',
      () => check({ notBefore: NOW - 20 * 60_000, notOnOrAfter: NOW - 2 * 60_000 }),
      'accepted',
    ],
    ['NotBefore ahead, within the skew', () => check({ notBefore: NOW + 2 * 60_000 }), 'accepted'],
    ['NotBefore ahead, beyond the skew', () => check({ notBefore: NOW + 4 * 60_000 }), 'idp.assertion_not_yet_valid'],
  ];
  for (const [label, run, code] of cases) {
    it(`${label}: ${code}`, () => expect(codeOf(run)).to.equal(code));
  }

  it('every AudienceRestriction must name us', () => {
    const xml = responseXml(
      { issuer: expected.issuer, destination: expected.acsUrl, inResponseTo: expected.requestId, issuedAt: NOW },
      assertionXml({
        issuer: expected.issuer,
        nameId: 'ada',
        audiences: [expected.audience],
        recipient: expected.acsUrl,
        inResponseTo: expected.requestId,
        issuedAt: NOW,
      }),
    ).replace(
      '</saml:AudienceRestriction>',
      '</saml:AudienceRestriction><saml:AudienceRestriction><saml:Audience>https://other.example</saml:Audience></saml:AudienceRestriction>',
    );
    const shape = checkResponseShape(parseSamlXml(xml));
    expect(
      codeOf(() =>
        checkAssertion(
          { response: shape.response, assertion: shape.assertion, assertionSigned: true, signers: [] },
          shape.response,
          expected,
        ),
      ),
    ).to.equal('idp.audience_mismatch');
  });
});
