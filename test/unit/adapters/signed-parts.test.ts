import { expect } from 'chai';
import { assertionXml, responseXml, signElement } from '../../../scripts/saml/saml-response.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { checkResponseShape } from '../../../src/adapters/saml/response-shape.js';
import { parseSamlXml, textOf } from '../../../src/adapters/saml/saml-xml.js';
import { readSignedParts } from '../../../src/adapters/saml/signed-parts.js';
import { readSigningCertificate, type SigningCertificate } from '../../../src/adapters/saml/signing-certificate.js';

const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const trusted = makeSigningCredential();
const attacker = makeSigningCredential({ commonName: 'attacker.example' });
const certificates = [readSigningCertificate(trusted.certificateBody) as SigningCertificate];

function signedResponse(credential = trusted, keyInfo = true): string {
  const assertion = signElement(
    assertionXml({
      issuer: 'https://idp.example',
      nameId: 'ada@example.com',
      audiences: ['sp'],
      recipient: 'acs',
      inResponseTo: '_r',
    }),
    'Assertion',
    { credential, keyInfo },
  );
  return responseXml({ issuer: 'https://idp.example', destination: 'acs', inResponseTo: '_r' }, assertion);
}

const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
};

describe('readSignedParts: values come from the bytes the signature covers', () => {
  it('returns the signed assertion even when handed a forged element with the same ID', () => {
    const xml = signedResponse();
    const shape = checkResponseShape(parseSamlXml(xml));
    const forged = shape.assertion.cloneNode(true) as Element;
    const nameId = forged.getElementsByTagNameNS(ASSERTION, 'NameID')[0];
    if (nameId) nameId.textContent = 'evil@example.com';
    const signed = readSignedParts(xml, { ...shape, assertion: forged }, certificates, true);
    expect(textOf(signed.assertion.getElementsByTagNameNS(ASSERTION, 'NameID')[0] as Element)).to.equal(
      'ada@example.com',
    );
    expect(signed.assertionSigned).to.equal(true);
    expect(signed.signers).to.deep.equal(certificates);
  });

  it('never trusts the certificate inside KeyInfo: a response signed by another key is idp.signature_invalid', () => {
    const xml = signedResponse(attacker, true);
    expect(codeOf(() => readSignedParts(xml, checkResponseShape(parseSamlXml(xml)), certificates, true))).to.equal(
      'idp.signature_invalid',
    );
  });

  it('verifies without KeyInfo, with the metadata certificate', () => {
    const xml = signedResponse(trusted, false);
    expect(readSignedParts(xml, checkResponseShape(parseSamlXml(xml)), certificates, true).assertionSigned).to.equal(
      true,
    );
  });
});
