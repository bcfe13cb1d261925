import { expect } from 'chai';
import { logoutKeysOf, readSamlSessionRecord, samlSessionRecord } from '../../../src/adapters/saml/saml-name-id.js';

const IDP = 'https://idp.example/metadata';
const SP = 'https://app.example/saml';
const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';

describe('SAML NameID comparison for single logout (logoutKeysOf)', () => {
  const [plain] = logoutKeysOf(IDP, SP, { value: 'ada', format: PERSISTENT }, undefined);

  for (const [label, nameId, same] of [
    ['the same NameID', { value: 'ada', format: PERSISTENT }, true],
    [
      'NameQualifier written out as the identity provider',
      { value: 'ada', format: PERSISTENT, nameQualifier: IDP },
      true,
    ],
    [
      'SPNameQualifier written out as this service provider',
      { value: 'ada', format: PERSISTENT, spNameQualifier: SP },
      true,
    ],
    ['another value', { value: 'bob', format: PERSISTENT }, false],
    ['another Format', { value: 'ada', format: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress' }, false],
    ['another NameQualifier', { value: 'ada', format: PERSISTENT, nameQualifier: 'https://other.example' }, false],
    ['another SPNameQualifier', { value: 'ada', format: PERSISTENT, spNameQualifier: 'https://other.example' }, false],
  ] as const) {
    it(`${label}: ${same ? 'the same' : 'another'} subject`, () => {
      expect(logoutKeysOf(IDP, SP, nameId, undefined)[0] === plain).to.equal(same);
    });
  }

  it('an absent Format is unspecified', () => {
    const unspecified = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';
    expect(logoutKeysOf(IDP, SP, { value: 'ada' }, undefined)).to.deep.equal(
      logoutKeysOf(IDP, SP, { value: 'ada', format: unspecified }, undefined),
    );
  });

  it('another identity provider never names the same sessions', () => {
    expect(logoutKeysOf('https://evil.example', SP, { value: 'ada', format: PERSISTENT }, undefined)[0]).not.to.equal(
      plain,
    );
  });

  it('with a SessionIndex: the NameID key and one per session, which differ by index', () => {
    const [byName, bySession] = logoutKeysOf(IDP, SP, { value: 'ada', format: PERSISTENT }, 'index-1');
    expect(byName).to.equal(plain);
    expect(bySession).not.to.equal(logoutKeysOf(IDP, SP, { value: 'ada', format: PERSISTENT }, 'index-2')[1]);
  });

  it('the kept record reads back field by field; anything else reads as nothing', () => {
    const nameId = { value: 'ada', format: PERSISTENT, nameQualifier: IDP };
    expect(readSamlSessionRecord(samlSessionRecord(nameId, 'index-1'))).to.deep.equal({
      nameId,
      sessionIndex: 'index-1',
    });
    expect(readSamlSessionRecord({ nameId: 'ada' })).to.equal(undefined);
    expect(readSamlSessionRecord({ nameId: { value: 7 } })).to.equal(undefined);
    expect(readSamlSessionRecord(undefined)).to.equal(undefined);
  });
});
