import { expect } from 'chai';
import { aggregateXml, signMetadata } from '../../../scripts/saml/federation-metadata.js';
import { logoutRequestXml, redirectUrl } from '../../../scripts/saml/logout-messages.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { FIRST_LOAD_RETRY_MS } from '../../../src/adapters/saml/refreshing-metadata.js';
import { saml2 } from '../../../src/adapters/saml/saml2.js';
import { MemorySessionStore } from '../../../src/adapters/session/memory-session-store.js';
import type { CallbackMessage, IdentityProvider } from '../../../src/application/ports/identity-provider.js';
import type { Logger } from '../../../src/application/ports/logger.js';
import { adapterOf, logoutEndpointOf, outcomeOf } from '../../support/adapter-of.js';
import { FixedClock } from '../../support/fixed-clock.js';
import { SP_ENTITY_ID } from '../../support/saml-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';

const PUBLIC_ORIGIN = 'https://app.example.com';

/** What the adapter logged at warn level, as written. */
function recordingLogger(lines: Array<Record<string, unknown>>): Logger {
  const ignore = () => undefined;
  return { debug: ignore, info: ignore, error: ignore, warn: (fields) => void lines.push({ ...fields }) };
}

/**
 * A federation aggregate that keeps failing to verify (MetadataSigningCertificate names
 * the federation, the document is signed by another key), and anonymous requests that
 * would each start a load of it: the ACS with AllowIdpInitiated, the single logout path,
 * readiness. Driven by a clock of the test's own: one load per wait, the wait doubling.
 */
describe('SAML2 metadata that keeps failing: one load per wait, whoever asks', function () {
  this.timeout(30_000);
  const federation = makeSigningCredential({ commonName: 'metadata-signer.federation.example' });
  const impostor = makeSigningCredential({ commonName: 'not-the-federation.example' });
  const filler = makeSigningCredential({ commonName: 'member.example.org' }).certificateBody;
  const sp = makeSigningCredential({ commonName: 'gatehouse-sp.example' });
  let idp: SamlTestIdentityProvider;
  let provider: IdentityProvider;
  const clock = new FixedClock(Date.now());
  const logged: Array<Record<string, unknown>> = [];

  const aggregateSignedBy = (signer: typeof federation) =>
    signMetadata(
      aggregateXml({
        members: [{ entityId: idp.entityId, ssoUrl: idp.ssoUrl, certificateBodies: [idp.credential.certificateBody] }],
        count: 40,
        fillerCertificate: filler,
      }),
      signer,
    );

  before(async () => {
    idp = await SamlTestIdentityProvider.start();
    idp.metadataOverride = aggregateSignedBy(impostor);
    provider = await adapterOf(
      saml2,
      {
        EntityId: SP_ENTITY_ID,
        MetadataUrl: idp.metadataUrl,
        IdpEntityId: idp.entityId,
        MetadataSigningCertificate: federation.certificatePem,
        AllowIdpInitiated: true,
        SingleLogout: true,
        SigningCertificate: sp.certificatePem,
        SigningKey: sp.privateKeyPem,
      },
      {
        clock,
        sessionStore: new MemorySessionStore({ maxEntries: 1000, clock }),
        logger: recordingLogger(logged),
        publicOrigin: PUBLIC_ORIGIN,
      },
    );
  });
  after(async () => {
    await idp?.close();
  });

  /** One of each anonymous request that needs the metadata; the codes they were refused with. */
  async function everyoneAsks(): Promise<Array<string | undefined>> {
    const acs: CallbackMessage = {
      method: 'POST',
      url: new URL(`${PUBLIC_ORIGIN}/Saml2/Acs`),
      form: new URLSearchParams(idp.unsolicitedAnswer(`${PUBLIC_ORIGIN}/Saml2/Acs`, SP_ENTITY_ID)),
    };
    const sloUrl = `${PUBLIC_ORIGIN}/Saml2/Logout`;
    const xml = logoutRequestXml({ issuer: idp.entityId, destination: sloUrl, nameId: 'admin@example.com' });
    const logout: CallbackMessage = {
      method: 'GET',
      url: new URL(redirectUrl(sloUrl, 'SAMLRequest', xml, { credential: idp.credential })),
      form: new URLSearchParams(),
    };
    return Promise.all([
      outcomeOf(provider.unsolicited?.complete(acs) ?? Promise.reject(new Error('AllowIdpInitiated is off'))),
      outcomeOf(
        provider.receiveLogout?.(logout, logoutEndpointOf(provider)) ??
          Promise.reject(new Error('SingleLogout is off')),
      ),
      provider.healthCheck?.check() ?? Promise.resolve('no health check'),
    ]);
  }

  it('refuses every anonymous request with the last failure, loading again only once each wait has passed; the wait doubles; a good document ends it', async () => {
    const refused = ['idp.metadata_invalid', 'idp.metadata_invalid', 'down'];
    expect(await everyoneAsks()).to.deep.equal(refused);
    expect(idp.metadataRequests, 'the three asked together: one load').to.equal(1);
    for (let i = 0; i < 4; i++) expect(await everyoneAsks()).to.deep.equal(refused);
    clock.advance(FIRST_LOAD_RETRY_MS - 1);
    expect(await everyoneAsks()).to.deep.equal(refused);
    expect(idp.metadataRequests, 'none during the first wait').to.equal(1);

    clock.advance(1);
    expect(await everyoneAsks()).to.deep.equal(refused);
    expect(idp.metadataRequests).to.equal(2);
    clock.advance(2 * FIRST_LOAD_RETRY_MS - 1);
    expect(await everyoneAsks()).to.deep.equal(refused);
    expect(idp.metadataRequests, 'the second wait is twice as long').to.equal(2);
    clock.advance(1);
    await everyoneAsks();
    expect(idp.metadataRequests).to.equal(3);

    const failures = logged.filter((line) => line.stage === 'metadata' && line.retryInSeconds !== undefined);
    expect(failures.map((line) => line.retryInSeconds)).to.deep.equal([5, 10, 20]);
    expect(failures[0]).to.include({ code: 'idp.metadata_invalid' });
    expect(String(failures[0]?.reason), 'the log says why').to.contain('signature');

    idp.metadataOverride = aggregateSignedBy(federation);
    clock.advance(4 * FIRST_LOAD_RETRY_MS);
    expect(await provider.healthCheck?.check()).to.equal('up');
    expect(idp.metadataRequests).to.equal(4);
    const [signedIn] = await everyoneAsks();
    expect(signedIn, 'the genuine unsolicited response now signs in').to.equal('accepted');
    expect(idp.metadataRequests).to.equal(4);
  });
});
