import { expect } from 'chai';
import { join } from 'node:path';
import { Libxml2SchemaValidator } from '../../../src/adapters/saml/libxml2-schema-validator.js';
import {
  authnRequestXml,
  logoutRequestXml,
  logoutResponseXml,
  newRequestId,
} from '../../../src/adapters/saml/outgoing-messages.js';
import { findProjectRoot } from '../../../src/bootstrap/project-root.js';

/** What Gatehouse sends must pass the schema an identity provider checks it against (SAML 2.0 protocol). */
describe('the SAML messages Gatehouse writes conform to the SAML 2.0 protocol schema', function () {
  this.timeout(20_000);
  const validator = new Libxml2SchemaValidator(join(findProjectRoot(), 'schemas', 'saml2'));
  const now = Date.now();
  const hostile = 'a"b<c>&d';

  it('an AuthnRequest', async () => {
    await validator.validate(
      authnRequestXml({
        id: newRequestId(),
        now,
        destination: 'https://idp.example/sso?x=1&y=2',
        issuer: 'https://app.example/saml',
        acsUrl: 'https://app.example/Saml2/Acs',
      }),
    );
  });

  it('a step-up AuthnRequest: ForceAuthn and RequestedAuthnContext (Comparison exact), values escaped', async () => {
    const xml = authnRequestXml({
      id: newRequestId(),
      now,
      destination: 'https://idp.example/sso',
      issuer: 'https://app.example/saml',
      acsUrl: 'https://app.example/Saml2/Acs',
      stepUp: { maxAgeSeconds: 60, contextClasses: ['urn:example:gold', hostile] },
    });
    await validator.validate(xml);
    expect(xml).to.include(' ForceAuthn="true"');
    expect(xml).to.include(
      '<samlp:RequestedAuthnContext Comparison="exact"><saml:AuthnContextClassRef>urn:example:gold</saml:AuthnContextClassRef><saml:AuthnContextClassRef>a&quot;b&lt;c&gt;&amp;d</saml:AuthnContextClassRef></samlp:RequestedAuthnContext>',
    );
    const plain = authnRequestXml({
      id: newRequestId(),
      now,
      destination: 'https://idp.example/sso',
      issuer: 'i',
      acsUrl: 'https://app.example/a',
    });
    expect(plain).not.to.include('ForceAuthn').and.not.to.include('RequestedAuthnContext');
  });

  it('a LogoutRequest with every NameID qualifier and a SessionIndex, values escaped', async () => {
    const xml = logoutRequestXml({
      id: newRequestId(),
      now,
      notOnOrAfter: now + 300_000,
      destination: 'https://idp.example/slo',
      issuer: 'https://app.example/saml',
      nameId: {
        value: hostile,
        format: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
        nameQualifier: hostile,
        spNameQualifier: 'https://app.example/saml',
      },
      sessionIndex: hostile,
    });
    await validator.validate(xml);
    expect(xml).not.to.contain(hostile);
  });

  it('a LogoutRequest without SessionIndex or qualifiers, and a LogoutResponse', async () => {
    await validator.validate(
      logoutRequestXml({
        id: newRequestId(),
        now,
        notOnOrAfter: now + 300_000,
        destination: 'https://idp.example/slo',
        issuer: 'https://app.example/saml',
        nameId: { value: 'ada' },
        sessionIndex: undefined,
      }),
    );
    await validator.validate(
      logoutResponseXml({
        id: newRequestId(),
        now,
        destination: 'https://idp.example/slo',
        issuer: 'https://app.example/saml',
        inResponseTo: '_abc',
      }),
    );
  });

  it('and the schema check does refuse a malformed one (this test can fail)', async () => {
    const broken = logoutResponseXml({
      id: newRequestId(),
      now,
      destination: 'https://idp.example/slo',
      issuer: 'https://app.example/saml',
      inResponseTo: '_abc',
    }).replace(/<samlp:Status>.*<\/samlp:Status>/, '');
    let refused = false;
    await validator.validate(broken).catch(() => (refused = true));
    expect(refused).to.equal(true);
  });
});
