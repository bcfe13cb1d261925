import { expect } from 'chai';
import { assertionClaims } from '../../../src/adapters/saml/assertion-claims.js';
import { RESPONSE_SIZE } from '../../../src/adapters/saml/message-size.js';
import { decodePostedMessage, parseSamlXml, textOf } from '../../../src/adapters/saml/saml-xml.js';

const refusalCode = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
};

describe('reading a posted SAML message', () => {
  it('decodes base64 with line breaks', () => {
    const encoded = Buffer.from('<a/>').toString('base64');
    expect(decodePostedMessage(`${encoded.slice(0, 4)}\r\n${encoded.slice(4)}`, RESPONSE_SIZE)).to.equal('<a/>');
  });

  for (const [label, value] of <Array<[string, string]>>[
    ['characters outside base64', 'PGEv%%%'],
    ['bad padding', 'PGEvP'],
    ['nothing', ''],
    ['bytes that are not UTF-8', Buffer.from([0xc3, 0x28, 0x3c]).toString('base64')],
  ]) {
    it(`refuses ${label}: idp.response_malformed`, () => {
      expect(refusalCode(() => decodePostedMessage(value, RESPONSE_SIZE))).to.equal('idp.response_malformed');
    });
  }

  for (const [label, xml] of <Array<[string, string]>>[
    ['a DOCTYPE', '<!DOCTYPE a><a/>'],
    ['an ENTITY hidden in a comment', '<a><!-- <!ENTITY x "y"> --></a>'],
    ['unclosed markup', '<a><b></a>'],
    ['text only', 'not xml'],
  ]) {
    it(`refuses ${label} before or while parsing`, () => {
      expect(refusalCode(() => parseSamlXml(xml))).to.equal('idp.response_malformed');
    });
  }
});

describe('textOf', () => {
  it('joins every text node: a comment inside a value never cuts it short', () => {
    const element = parseSamlXml('<NameID>admin@example.com<!---->.evil.example</NameID>').documentElement;
    expect(textOf(element)).to.equal('admin@example.com.evil.example');
  });
});

describe('assertionClaims', () => {
  const assertion = (inner: string) =>
    parseSamlXml(`<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">${inner}</saml:Assertion>`)
      .documentElement;

  it('keeps every value of a multi-valued attribute, across statements', () => {
    const claims = assertionClaims(
      assertion(
        '<saml:Subject><saml:NameID>u1</saml:NameID></saml:Subject>' +
          '<saml:AttributeStatement><saml:Attribute Name="groups"><saml:AttributeValue>a</saml:AttributeValue><saml:AttributeValue>b</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>' +
          '<saml:AttributeStatement><saml:Attribute Name="groups"><saml:AttributeValue>c</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>',
      ),
    );
    expect(claims.groups).to.deep.equal(['a', 'b', 'c']);
    expect(claims['http://schemas.xmlsoap.org/ws/2005/05/identity/claims/nameidentifier']).to.deep.equal(['u1']);
  });

  it('gives __proto__ and constructor no special meaning: own claims of a prototype-less object', () => {
    const claims = assertionClaims(
      assertion(
        '<saml:Subject><saml:NameID>u1</saml:NameID></saml:Subject><saml:AttributeStatement>' +
          '<saml:Attribute Name="__proto__"><saml:AttributeValue>x</saml:AttributeValue></saml:Attribute>' +
          '<saml:Attribute Name="constructor"><saml:AttributeValue>y</saml:AttributeValue></saml:Attribute>' +
          '</saml:AttributeStatement>',
      ),
    );
    expect(Object.getPrototypeOf(claims)).to.equal(null);
    expect(Object.keys(claims)).to.include.members(['__proto__', 'constructor']);
    expect(claims['__proto__']).to.deep.equal(['x']);
    expect(({} as Record<string, unknown>).x).to.equal(undefined);
  });

  it('drops a transient NameID, and refuses the sign-in when nothing stable names the user', () => {
    const transient =
      '<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:transient">_t</saml:NameID></saml:Subject>';
    expect(refusalCode(() => assertionClaims(assertion(transient)))).to.equal('idp.subject_missing');
    const withUpn = assertionClaims(
      assertion(
        `${transient}<saml:AttributeStatement><saml:Attribute Name="http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn"><saml:AttributeValue>ada@corp</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>`,
      ),
    );
    expect(Object.keys(withUpn)).to.deep.equal(['http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn']);
  });
});
