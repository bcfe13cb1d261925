import { expect } from 'chai';
import { encryptAssertion } from '../../../scripts/saml/assertion-encryption.js';
import { logoutRequestXml } from '../../../scripts/saml/logout-messages.js';
import { assertionXml, encodeForPost, responseXml, signElement } from '../../../scripts/saml/saml-response.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import {
  checkMessageSize,
  LOGOUT_MESSAGE_SIZE,
  RESPONSE_SIZE,
  type MessageSize,
} from '../../../src/adapters/saml/message-size.js';
import { postedResponseOf } from '../../../src/adapters/saml/posted-response.js';
import type { CallbackMessage } from '../../../src/application/ports/identity-provider.js';
import { adfsResponse, entraResponse, googleResponse, oktaResponse } from '../../support/vendor-saml-responses.js';

const codeOf = (run: () => unknown) => {
  try {
    run();
    return 'read';
  } catch (error) {
    return (error as { code?: string }).code;
  }
};
const markupOf = (xml: string) => (xml.match(/[<=]/g) ?? []).length;
/** Within `size` with room: at most half its bytes and a quarter of its markup. */
const withRoom = (xml: string, size: MessageSize) => {
  expect(Buffer.byteLength(xml), 'bytes').to.be.at.most(size.xmlBytes / 2);
  expect(markupOf(xml), 'markup').to.be.at.most(size.markup / 4);
  expect(codeOf(() => checkMessageSize(xml, size))).to.equal('read');
};

describe('the size of a SAML message read before any parser sees it', () => {
  const idp = makeSigningCredential({ commonName: 'idp.example' });
  const sp = makeSigningCredential({ commonName: 'sp.example' });
  const to = {
    issuer: 'https://idp.example/saml',
    audience: 'https://app.example.com/saml',
    acsUrl: 'https://app.example.com/Saml2/Acs',
    inResponseTo: `_${'a'.repeat(40)}`,
    credential: idp,
  };

  it('the four vendors’ responses, and one with 150 groups and 60 two-valued attributes, signed twice, plain or encrypted, fit with room', () => {
    for (const make of [adfsResponse, entraResponse, oktaResponse, googleResponse]) withRoom(make(to), RESPONSE_SIZE);
    const attributes: Record<string, string[]> = {
      'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups': Array.from(
        { length: 150 },
        (_, i) => `a1b2c3d4-0000-4000-8000-${String(i).padStart(12, '0')}`,
      ),
    };
    for (let i = 0; i < 60; i++)
      attributes[`http://claims.example.com/attribute-${i}`] = [`value ${i}`, `another ${i}`];
    const assertion = signElement(
      assertionXml({ ...to, nameId: 'ada@example.com', audiences: [to.audience], recipient: to.acsUrl, attributes }),
      'Assertion',
      { credential: idp },
    );
    const sign = (inner: string) =>
      signElement(responseXml({ ...to, destination: to.acsUrl }, inner), 'Response', { credential: idp });
    withRoom(sign(assertion), RESPONSE_SIZE);
    withRoom(sign(encryptAssertion(assertion, { certificatePem: sp.certificatePem })), RESPONSE_SIZE);
  });

  it('a LogoutRequest with a 256-character NameID, both qualifiers and 32 SessionIndexes, signed, fits with room', () => {
    const xml = logoutRequestXml({
      issuer: to.issuer,
      destination: 'https://app.example.com/Saml2/Logout',
      nameId: 'n'.repeat(256),
      nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
      nameQualifier: to.issuer,
      spNameQualifier: to.audience,
      sessionIndexes: Array.from({ length: 32 }, (_, i) => `_${String(i).padStart(63, 's')}`),
      notOnOrAfter: Date.now(),
    });
    withRoom(signElement(xml, 'LogoutRequest', { credential: idp }), LOGOUT_MESSAGE_SIZE);
  });

  it('refuses one byte or one mark past the bound, counting UTF-8 bytes, not characters', () => {
    const size: MessageSize = { xmlBytes: 64, markup: 4 };
    expect(codeOf(() => checkMessageSize('x'.repeat(64), size))).to.equal('read');
    expect(codeOf(() => checkMessageSize('x'.repeat(65), size))).to.equal('idp.message_too_large');
    expect(codeOf(() => checkMessageSize('é'.repeat(32), size))).to.equal('read');
    expect(
      codeOf(() => checkMessageSize(`${'é'.repeat(32)}x`, size)),
      '65 bytes in 33 characters',
    ).to.equal('idp.message_too_large');
    expect(codeOf(() => checkMessageSize('<a b="c"/>==', size))).to.equal('read');
    expect(codeOf(() => checkMessageSize('<a b="c"/>===', size))).to.equal('idp.message_too_large');
    expect(codeOf(() => checkMessageSize('<<<<<', size))).to.equal('idp.message_too_large');
  });

  it('a posted response is decoded and parsed once per message; a refused one is refused with the same error each time', () => {
    const messageOf = (form: Record<string, string>): CallbackMessage => ({
      method: 'POST',
      url: new URL(to.acsUrl),
      form: new URLSearchParams(form),
    });
    const message = messageOf({ SAMLResponse: encodeForPost('<samlp:Response xmlns:samlp="urn:x"/>') });
    const first = postedResponseOf(message);
    expect(postedResponseOf(message).document, 'the same document, not parsed again').to.equal(first.document);
    expect(postedResponseOf(messageOf({ SAMLResponse: first.encoded })).document).not.to.equal(first.document);
    const unreadable = messageOf({ SAMLResponse: encodeForPost('<unclosed>') });
    const errors = [0, 1].map(() => {
      try {
        postedResponseOf(unreadable);
      } catch (error) {
        return error;
      }
      return undefined;
    });
    expect(errors[0]).to.have.property('code', 'idp.response_malformed');
    expect(errors[1], 'the same refusal, not a second parse').to.equal(errors[0]);
  });
});
