import { expect } from 'chai';
import { aggregateXml, signMetadata } from '../../../scripts/saml/federation-metadata.js';
import { identityProviderMetadataXml } from '../../../scripts/saml/authn-request.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { HttpConnectionPreflight } from '../../../src/adapters/preflight/http-connection-preflight.js';
import { OFF_THREAD_ABOVE_BYTES } from '../../../src/adapters/saml/metadata-reader.js';
import { connectionOf, samlSection } from '../../support/connection-declarations.js';
import { startSite, type LoopbackSite } from '../../support/loopback-listeners.js';

const ENTITY = 'https://idp.acme.example/saml';
const DAY = 24 * 60 * 60 * 1000;
const DOCUMENT_SENTINEL = 'SENTINEL-saml-preflight';
const signing = makeSigningCredential({ commonName: 'idp.acme.example' });
const other = makeSigningCredential({ commonName: 'second.acme.example' });

describe('HttpConnectionPreflight: a SAML 2 connection', function () {
  this.timeout(20_000);
  let site: LoopbackSite;
  let metadata = '';
  let metadataUrl = '';
  before(async () => {
    site = await startSite('127.0.0.1', (req, res) => {
      if (req.url !== '/metadata') return void res.writeHead(404).end();
      res.setHeader('content-type', 'application/samlmetadata+xml').end(metadata);
    });
    metadataUrl = `http://127.0.0.1:${site.port}/metadata`;
  });
  after(() => site.close());

  const local = new HttpConnectionPreflight({ allowPrivateNetworks: true });
  const connection = (extra: Record<string, unknown> = {}) =>
    connectionOf(
      'Acme',
      samlSection('acme', ['acme.example'], { MetadataUrl: metadataUrl, IdpEntityId: ENTITY, ...extra }),
    );
  const document = (certificateBodies = [signing.certificateBody], entityId = ENTITY) =>
    identityProviderMetadataXml(entityId, 'https://idp.acme.example/sso', certificateBodies);
  const check = (extra: Record<string, unknown> = {}, preflight = local) => preflight.check(connection(extra));

  it('passes: the entity IdpEntityId names, with a signing certificate in force', async () => {
    metadata = document([signing.certificateBody, other.certificateBody]);
    expect(await check()).to.deep.equal([]);
  });

  it('passes without IdpEntityId: the metadata names the one identity provider', async () => {
    metadata = document();
    expect(await check({ IdpEntityId: undefined })).to.deep.equal([]);
  });

  it('is refused when private networks are not allowed, naming MetadataUrl', async () => {
    metadata = document();
    expect(await check({}, new HttpConnectionPreflight({ allowPrivateNetworks: false }))).to.deep.equal([
      { key: 'MetadataUrl', reason: 'The metadata could not be fetched: the address must use https.' },
    ]);
  });

  it('another entityID than IdpEntityId is refused, naming IdpEntityId and the entity found', async () => {
    metadata = document([signing.certificateBody], 'https://idp.globex.example/saml');
    expect(await check()).to.deep.equal([
      {
        key: 'IdpEntityId',
        reason: 'The metadata describes the entity "https://idp.globex.example/saml", not the one IdpEntityId names.',
      },
    ]);
  });

  it('an aggregate: the entity IdpEntityId names is found among many, and refused when absent', async () => {
    const filler = other.certificateBody;
    const member = {
      entityId: ENTITY,
      ssoUrl: 'https://idp.acme.example/sso',
      certificateBodies: [signing.certificateBody],
    };
    metadata = aggregateXml({ members: [member], count: 12, fillerCertificate: filler });
    expect(await check()).to.deep.equal([]);
    expect(await check({ IdpEntityId: 'https://nobody.example/saml' })).to.deep.equal([
      { key: 'IdpEntityId', reason: 'The metadata holds no entity with the entityID IdpEntityId names.' },
    ]);
    // Without IdpEntityId, an aggregate of several identity providers is refused by the sign-ins' own reader.
    const [refusal] = await check({ IdpEntityId: undefined });
    expect(refusal?.key).to.equal('IdpEntityId');
    expect(refusal?.reason).to.include('set IdpEntityId to the entityID of yours').and.not.include('ProjectTemplate');
  });

  it('an aggregate larger than 256 KiB is read off the event loop, as the sign-ins read it, and passes', async () => {
    const member = {
      entityId: ENTITY,
      ssoUrl: 'https://idp.acme.example/sso',
      certificateBodies: [signing.certificateBody],
    };
    metadata = aggregateXml({ members: [member], count: 150, fillerCertificate: other.certificateBody });
    expect(Buffer.byteLength(metadata))
      .to.be.above(OFF_THREAD_ABOVE_BYTES)
      .and.below(1024 * 1024);
    expect(await check()).to.deep.equal([]);
  });

  it('metadata without a signing key is refused', async () => {
    metadata = document().replace('use="signing"', 'use="encryption"');
    expect(await check()).to.deep.equal([
      {
        key: 'MetadataUrl',
        reason:
          "The identity provider's metadata cannot be used. It names no signing certificate, so no response could be verified against it.",
      },
    ]);
  });

  it('a KeyDescriptor without `use` serves signing (SAML Metadata 2.4.1.1): passes', async () => {
    metadata = document().replace(' use="signing"', '');
    expect(await check()).to.deep.equal([]);
  });

  it('an expired signing certificate is refused, by its subject and end of validity', async () => {
    const notAfter = Date.parse('2023-06-30T12:00:00Z');
    const expired = makeSigningCredential({
      commonName: 'old-signer.acme.example',
      notBefore: notAfter - 365 * DAY,
      notAfter,
    });
    metadata = document([signing.certificateBody, expired.certificateBody]);
    expect(await check()).to.deep.equal([
      {
        key: 'MetadataUrl',
        reason: `The metadata's signing certificate "CN=old-signer.acme.example" expired on 2023-06-30T12:00:00Z.`,
      },
    ]);
  });

  it('the clock decides: a certificate in force today is refused by a pre-flight past its end', async () => {
    metadata = document();
    const later = new HttpConnectionPreflight({ allowPrivateNetworks: true, now: () => Date.now() + 11 * 365 * DAY });
    const refusals = await check({}, later);
    expect(refusals).to.have.length(1);
    expect(refusals[0]?.reason).to.match(/^The metadata's signing certificate "CN=idp\.acme\.example" expired on /);
  });

  it('metadata whose validUntil has passed is refused', async () => {
    metadata = document().replace('<md:EntityDescriptor ', '<md:EntityDescriptor validUntil="2024-01-01T00:00:00Z" ');
    expect(await check()).to.deep.equal([
      {
        key: 'MetadataUrl',
        reason: "The identity provider's metadata cannot be used. Its validUntil lies in the past, or is not a date.",
      },
    ]);
  });

  it('a document that is not XML, or declares a DTD, is refused', async () => {
    for (const text of ['{"not": "xml"}', `<!DOCTYPE x [<!ENTITY e "${'a'.repeat(10)}">]>${document()}`]) {
      metadata = text;
      expect(await check()).to.deep.equal([
        { key: 'MetadataUrl', reason: 'The metadata is not a well-formed XML document without a DTD.' },
      ]);
    }
  });

  it('a document larger than MetadataMaxBytes (at most 1 MiB here) is refused', async () => {
    metadata = document().replace('</md:EntityDescriptor>', `<!-- ${'x'.repeat(70 * 1024)} --></md:EntityDescriptor>`);
    expect(await check({ MetadataMaxBytes: 64 * 1024 })).to.deep.equal([
      { key: 'MetadataUrl', reason: 'The metadata could not be fetched: the document is larger than 64 KiB.' },
    ]);
    metadata = document().replace(
      '</md:EntityDescriptor>',
      `<!-- ${'x'.repeat(1024 * 1024)} --></md:EntityDescriptor>`,
    );
    expect(await check({ MetadataMaxBytes: 4 * 1024 * 1024 })).to.deep.equal([
      { key: 'MetadataUrl', reason: 'The metadata could not be fetched: the document is larger than 1 MiB.' },
    ]);
  });

  it('signed metadata is checked against MetadataSigningCertificate, as the sign-ins check it', async () => {
    const federation = makeSigningCredential({ commonName: 'federation.example' });
    const member = {
      entityId: ENTITY,
      ssoUrl: 'https://idp.acme.example/sso',
      certificateBodies: [signing.certificateBody],
    };
    metadata = signMetadata(
      aggregateXml({ members: [member], count: 3, fillerCertificate: other.certificateBody }),
      federation,
    );
    expect(await check({ MetadataSigningCertificate: federation.certificatePem })).to.deep.equal([]);
    const [refusal] = await check({ MetadataSigningCertificate: other.certificatePem });
    expect(refusal).to.deep.equal({
      key: 'MetadataUrl',
      reason:
        "The identity provider's metadata cannot be used. Its signature does not verify with MetadataSigningCertificate.",
    });
  });

  it('no refusal quotes a private key of the connection, nor the document beyond the entity found', async () => {
    const sp = makeSigningCredential({ commonName: 'sp.acme.example' });
    metadata = document([signing.certificateBody], 'https://idp.globex.example/saml').replace(
      '</md:EntityDescriptor>',
      `<!-- ${DOCUMENT_SENTINEL} --></md:EntityDescriptor>`,
    );
    const refusals = await check({ SigningCertificate: sp.certificatePem, SigningKey: sp.privateKeyPem });
    expect(refusals).to.have.length(1);
    const text = JSON.stringify(refusals);
    expect(text).to.not.include('PRIVATE KEY').and.not.include(DOCUMENT_SENTINEL);
  });
});
