import { expect } from 'chai';
import { identityProviderMetadataXml } from '../../../scripts/saml/authn-request.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { HttpConnectionPreflight } from '../../../src/adapters/preflight/http-connection-preflight.js';
import { connectionOf, samlSection } from '../../support/connection-declarations.js';

const ENTITY = 'https://idp.acme.example/saml';
const DAY = 24 * 60 * 60 * 1000;
const signing = makeSigningCredential({ commonName: 'idp.acme.example' });
const document = (certificateBodies = [signing.certificateBody], entityId = ENTITY) =>
  identityProviderMetadataXml(entityId, 'https://idp.acme.example/sso', certificateBodies);

/**
 * The pre-flight of a SAML connection whose metadata is given as a document (IdpMetadata):
 * nothing is fetched (the pre-flight allows no private network, and MetadataUrl names a
 * host that does not resolve), and the document is held to what a fetched one is.
 */
describe('HttpConnectionPreflight: SAML metadata given as a document (IdpMetadata)', function () {
  this.timeout(20_000);
  const guarded = new HttpConnectionPreflight({ allowPrivateNetworks: false });
  const connection = (idpMetadata: string, extra: Record<string, unknown> = {}) =>
    connectionOf(
      'Acme',
      samlSection('acme', ['acme.example'], {
        MetadataUrl: 'https://metadata.invalid/never-fetched',
        IdpMetadata: idpMetadata,
        IdpEntityId: ENTITY,
        ...extra,
      }),
    );

  it('passes, fetching nothing, when the document describes the entity IdpEntityId names', async () => {
    expect(await guarded.check(connection(document()))).to.deep.equal([]);
  });

  it('its report lists what passed: the document read, the entity, the sign-in address, each certificate', async () => {
    const checks = await guarded.report('Saml2', { IdpMetadata: document(), IdpEntityId: ENTITY });
    expect(checks.map((check) => check.outcome)).to.not.include('failed');
    expect(checks.map((check) => [check.key, check.text])).to.deep.include.members([
      ['IdpMetadata', 'The metadata is a well-formed XML document.'],
      ['IdpEntityId', `The metadata describes the identity provider "${ENTITY}".`],
      ['IdpMetadata', 'Its sign-in address (the HTTP-Redirect binding) is "https://idp.acme.example/sso".'],
    ]);
    expect(
      checks.some((check) => /^Its signing certificate "CN=idp\.acme\.example" is valid until /.test(check.text)),
    ).to.equal(true);
    expect(checks.map((check) => check.text).join(' ')).not.to.include('fetched');
  });

  it('refuses a document about another entity, naming IdpEntityId', async () => {
    expect(await guarded.check(connection(document(undefined, 'https://idp.globex.example/saml')))).to.deep.equal([
      {
        key: 'IdpEntityId',
        reason: 'The metadata describes the entity "https://idp.globex.example/saml", not the one IdpEntityId names.',
      },
    ]);
  });

  it('refuses an expired signing certificate, naming IdpMetadata', async () => {
    const notAfter = Date.parse('2023-06-30T12:00:00Z');
    const expired = makeSigningCredential({
      commonName: 'old.acme.example',
      notBefore: notAfter - 365 * DAY,
      notAfter,
    });
    expect(await guarded.check(connection(document([expired.certificateBody])))).to.deep.equal([
      {
        key: 'IdpMetadata',
        reason: `The metadata's signing certificate "CN=old.acme.example" expired on 2023-06-30T12:00:00Z.`,
      },
    ]);
  });

  it('refuses a document with a DTD, or one over 128 KiB, naming IdpMetadata', async () => {
    const dtd = `<!DOCTYPE x [<!ENTITY e "a">]>${document()}`;
    expect(await guarded.report('Saml2', { IdpMetadata: dtd, IdpEntityId: ENTITY })).to.deep.equal([
      { key: 'IdpMetadata', outcome: 'failed', text: 'The metadata is not a well-formed XML document without a DTD.' },
    ]);
    const large = document().replace(
      '</md:EntityDescriptor>',
      `<!--${'x'.repeat(128 * 1024)}--></md:EntityDescriptor>`,
    );
    expect(await guarded.report('Saml2', { IdpMetadata: large, IdpEntityId: ENTITY })).to.deep.equal([
      { key: 'IdpMetadata', outcome: 'failed', text: 'The metadata is larger than 128 KiB.' },
    ]);
  });
});
