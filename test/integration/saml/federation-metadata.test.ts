import { expect } from 'chai';
import {
  aggregateXml,
  entitiesXml,
  entityXml,
  signMetadata,
  type FederatedIdentityProvider,
} from '../../../scripts/saml/federation-metadata.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { OFF_THREAD_ABOVE_BYTES } from '../../../src/adapters/saml/metadata-reader.js';
import { SamlBrowser, startSamlApp } from '../../support/saml-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';

const SAML = 'ProjectTemplate__Authentication__Providers__Saml2__';
const KEY = 'ProjectTemplate:Authentication:Providers:Saml2:IdpEntityId';
const federation = makeSigningCredential({ commonName: 'metadata-signer.federation.example' });
const filler = makeSigningCredential({ commonName: 'member.example.org' }).certificateBody;

describe('SAML2 federation metadata: an aggregate of entities, IdpEntityId, the federation’s signature', function () {
  this.timeout(30_000);
  const running: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const item of running.splice(0).reverse()) await item.close();
  });

  /** The test identity provider, its metadata replaced by what `document` makes of its own entity. */
  async function start(document: (member: FederatedIdentityProvider) => string, env: Record<string, string> = {}) {
    const idp = await SamlTestIdentityProvider.start();
    running.push(idp);
    idp.metadataOverride = document({
      entityId: idp.entityId,
      ssoUrl: idp.ssoUrl,
      certificateBodies: [idp.credential.certificateBody],
    });
    const app = await startSamlApp(idp, { ProjectTemplate__Session__PendingSignInsPerClient: '1000', ...env });
    running.push(app);
    return { idp, app };
  }

  /** The metadata is refused: the challenge is a 503 page giving the reason, readiness reports the provider down. */
  async function expectMetadataRefused(app: { url: string; logs: string[] }, reason: string): Promise<void> {
    const response = await fetch(`${app.url}/External/Challenge?provider=Saml2`, {
      redirect: 'manual',
      headers: { accept: 'text/html' },
    });
    const body = await response.text();
    expect(response.status, body.slice(0, 300)).to.equal(503);
    expect(body).to.contain('<code>idp.metadata_invalid</code>');
    expect(body).to.contain(reason);
    expect(app.logs.join('\n')).to.contain('"code":"idp.metadata_invalid"');
    const ready = (await (await fetch(`${app.url}/health/ready`)).json()) as { checks: Record<string, string> };
    expect(ready.checks['identityProvider:Saml2']).to.equal('down');
  }

  const several = (member: FederatedIdentityProvider) =>
    aggregateXml({ members: [member], count: 40, fillerCertificate: filler });

  it('an aggregate of several identity providers: IdpEntityId chooses ours, and sign-in works', async () => {
    const { idp } = await start(several);
    const chosen = await startSamlApp(idp, { [`${SAML}IdpEntityId`]: idp.entityId });
    running.push(chosen);
    expect(idp.metadata()).to.contain('<md:EntitiesDescriptor');
    expect((await new SamlBrowser().signIn(chosen, idp)).status).to.equal(302);
  });

  it('several identity providers and no IdpEntityId: refused, naming the key to set', async () => {
    const { app } = await start(several);
    await expectMetadataRefused(app, `It is an aggregate of 5 identity providers: set ${KEY}`);
  });

  it('an IdpEntityId the aggregate does not hold: refused, naming the key', async () => {
    const { app } = await start(several, { [`${SAML}IdpEntityId`]: 'https://not-a-member.example/idp' });
    await expectMetadataRefused(app, `It holds no entity with the entityID ${KEY} names.`);
  });

  it('an IdpEntityId that names a service provider of the aggregate: refused (no IDPSSODescriptor)', async () => {
    const { app } = await start(several, { [`${SAML}IdpEntityId`]: 'https://member-1.example.org/sp' });
    await expectMetadataRefused(app, 'It has no IDPSSODescriptor supporting SAML 2.0.');
  });

  it('an aggregate whose only identity provider is ours needs no IdpEntityId', async () => {
    const { idp, app } = await start((member) =>
      entitiesXml([
        entityXml({
          entityId: 'https://app.example.org/sp',
          role: 'sp',
          certificateBodies: [filler],
          location: 'https://app.example.org',
        }),
        entityXml({ ...member, role: 'idp', location: new URL(member.ssoUrl).origin }),
      ]),
    );
    expect((await new SamlBrowser().signIn(app, idp)).status).to.equal(302);
  });

  it('nested EntitiesDescriptor groups: our entity found at any depth', async () => {
    const { idp, app } = await start(
      (member) =>
        entitiesXml([
          entityXml({
            entityId: 'https://other.example.org/idp',
            role: 'idp',
            certificateBodies: [filler],
            location: 'https://other.example.org',
          }),
          entitiesXml([entitiesXml([entityXml({ ...member, role: 'idp', location: new URL(member.ssoUrl).origin })])]),
        ]),
      {},
    );
    // Two identity providers: without IdpEntityId it is refused; with it, ours is found two groups down.
    await expectMetadataRefused(app, 'It is an aggregate of 2 identity providers');
    const chosen = await startSamlApp(idp, { [`${SAML}IdpEntityId`]: idp.entityId });
    running.push(chosen);
    expect((await new SamlBrowser().signIn(chosen, idp)).status).to.equal(302);
  });

  it('a validUntil in the past on the group around our entity: refused', async () => {
    const { idp } = await start((member) =>
      entitiesXml([
        entitiesXml([entityXml({ ...member, role: 'idp', location: new URL(member.ssoUrl).origin })], {
          validUntil: '2001-01-01T00:00:00Z',
        }),
      ]),
    );
    const app = await startSamlApp(idp, { [`${SAML}IdpEntityId`]: idp.entityId });
    running.push(app);
    await expectMetadataRefused(app, 'Its validUntil lies in the past');
  });

  describe('MetadataSigningCertificate', () => {
    const signedSeveral = (member: FederatedIdentityProvider) => signMetadata(several(member), federation);
    const trusting = (idpEntityId: string) => ({
      [`${SAML}IdpEntityId`]: idpEntityId,
      [`${SAML}MetadataSigningCertificate`]: federation.certificatePem,
    });

    async function startSigned(document: (member: FederatedIdentityProvider) => string) {
      const { idp, app } = await start(document);
      const trusted = await startSamlApp(idp, trusting(idp.entityId));
      running.push(trusted);
      return { idp, app: trusted, untrusting: app };
    }

    it('an aggregate signed by the federation: verified, then sign-in works', async () => {
      const { idp, app } = await startSigned(signedSeveral);
      expect(idp.metadata()).to.contain('<ds:Signature');
      expect((await new SamlBrowser().signIn(app, idp)).status).to.equal(302);
    });

    it('nested groups under the federation’s signature: verified and found', async () => {
      const { idp, app } = await startSigned((member) =>
        signMetadata(
          entitiesXml([
            entityXml({
              entityId: 'https://other.example.org/idp',
              role: 'idp',
              certificateBodies: [filler],
              location: 'https://other.example.org',
            }),
            entitiesXml([entityXml({ ...member, role: 'idp', location: new URL(member.ssoUrl).origin })]),
          ]),
          federation,
        ),
      );
      expect((await new SamlBrowser().signIn(app, idp)).status).to.equal(302);
    });

    it('one signed EntityDescriptor, as a per-entity query service (MDQ) serves it: verified, then sign-in works', async () => {
      const { idp, app } = await startSigned((member) =>
        signMetadata(
          entityXml({ ...member, role: 'idp', location: new URL(member.ssoUrl).origin }).replace(
            '<md:EntityDescriptor ',
            '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" xmlns:mdui="urn:oasis:names:tc:SAML:metadata:ui" ID="_mdq-answer" ',
          ),
          federation,
        ),
      );
      expect(idp.metadata()).to.match(/^<md:EntityDescriptor [^>]*><ds:Signature/);
      expect((await new SamlBrowser().signIn(app, idp)).status).to.equal(302);
    });

    it('a large signed aggregate is read in a worker thread: the event loop keeps turning while it is verified', async () => {
      const idp = await SamlTestIdentityProvider.start();
      running.push(idp);
      const member = {
        entityId: idp.entityId,
        ssoUrl: idp.ssoUrl,
        certificateBodies: [idp.credential.certificateBody],
      };
      idp.metadataOverride = signMetadata(
        aggregateXml({ members: [member], count: 1200, fillerCertificate: filler }),
        federation,
      );
      expect(Buffer.byteLength(idp.metadataOverride)).to.be.above(2.5 * 1024 * 1024);
      const app = await startSamlApp(idp, {
        ...trusting(idp.entityId),
        [`${SAML}MetadataMaxBytes`]: String(4 * 1024 * 1024),
      });
      running.push(app);
      let longestGapMs = 0;
      let last = performance.now();
      const ticker = setInterval(() => {
        const now = performance.now();
        longestGapMs = Math.max(longestGapMs, now - last);
        last = now;
      }, 10);
      const started = performance.now();
      try {
        expect((await new SamlBrowser().signIn(app, idp)).status).to.equal(302);
      } finally {
        clearInterval(ticker);
      }
      // Read in place, xml-crypto would hold this thread for nearly the whole sign-in (the
      // longest pause about equal to it); off the thread, no pause comes near half of it,
      // however fast or loaded the machine is.
      const elapsedMs = performance.now() - started;
      expect(longestGapMs, 'the longest pause of this thread meanwhile').to.be.below(elapsedMs / 2);
    });

    it('a large aggregate refused in the worker thread: the reason reaches the page as from a small one', async () => {
      const { idp } = await start((member) =>
        aggregateXml({ members: [member], count: 200, fillerCertificate: filler }),
      );
      expect(Buffer.byteLength(idp.metadata())).to.be.above(OFF_THREAD_ABOVE_BYTES);
      const app = await startSamlApp(idp, {
        ...trusting(idp.entityId),
        [`${SAML}MetadataMaxBytes`]: String(4 * 1024 * 1024),
      });
      running.push(app);
      await expectMetadataRefused(app, 'It is not signed, and MetadataSigningCertificate asks for a signed document.');
    });

    it('unsigned while a certificate is configured: refused', async () => {
      const { app } = await startSigned(several);
      await expectMetadataRefused(app, 'It is not signed, and MetadataSigningCertificate asks for a signed document.');
    });

    it('tampered after signing (another certificate for our entity): refused', async () => {
      const attacker = makeSigningCredential({ commonName: 'attacker.example' });
      const { app } = await startSigned((member) =>
        signMetadata(several(member), federation).replace(member.certificateBodies[0] ?? '', attacker.certificateBody),
      );
      await expectMetadataRefused(app, 'Its signature does not verify with MetadataSigningCertificate.');
    });

    it('signed by another key than the configured certificate: refused', async () => {
      const other = makeSigningCredential({ commonName: 'another-federation.example' });
      const { app } = await startSigned((member) => signMetadata(several(member), other));
      await expectMetadataRefused(app, 'Its signature does not verify with MetadataSigningCertificate.');
    });

    it('signed with RSA-SHA1: refused', async () => {
      const { app } = await startSigned((member) =>
        signMetadata(several(member), federation).replace(
          'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
          'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
        ),
      );
      await expectMetadataRefused(app, 'Its signature uses an algorithm or a reference Gatehouse refuses');
    });

    /** A forged entity for our entityID, carrying the attacker's certificate. */
    const forged = (member: FederatedIdentityProvider) =>
      entityXml({
        entityId: member.entityId,
        role: 'idp',
        certificateBodies: [makeSigningCredential({ commonName: 'attacker.example' }).certificateBody],
        location: new URL(member.ssoUrl).origin,
      });
    const signatureOf = (xml: string) => /<ds:Signature[\s\S]*?<\/ds:Signature>/.exec(xml)?.[0] ?? '';
    const rootIdOf = (xml: string) => /<md:EntitiesDescriptor [^>]*ID="([^"]+)"/.exec(xml)?.[1] ?? '';

    it('wrapped: the signed aggregate nested in a new root holding a forged entity, the signature moved up: refused', async () => {
      const { app } = await startSigned((member) => {
        const genuine = signMetadata(several(member), federation);
        const inner = genuine.replace(signatureOf(genuine), '');
        return entitiesXml([forged(member), inner]).replace(
          /(<md:EntitiesDescriptor [^>]*>)/,
          `$1${signatureOf(genuine)}`,
        );
      });
      await expectMetadataRefused(app, 'Its signature uses an algorithm or a reference Gatehouse refuses');
    });

    it('wrapped: a new root under the signed root’s ID, the genuine aggregate inside it: refused', async () => {
      const { app } = await startSigned((member) => {
        const genuine = signMetadata(several(member), federation);
        const id = rootIdOf(genuine);
        const outer = entitiesXml([forged(member), genuine]).replace(/ID="[^"]+"/, `ID="${id}"`);
        return outer.replace(/(<md:EntitiesDescriptor [^>]*>)/, `$1${signatureOf(genuine)}`);
      });
      await expectMetadataRefused(app, 'Its signature does not verify with MetadataSigningCertificate.');
    });

    it('an entity appended to the signed root after signing: refused', async () => {
      const { app } = await startSigned((member) =>
        signMetadata(several({ ...member, entityId: 'https://renamed.example/idp' }), federation).replace(
          '</md:EntitiesDescriptor>',
          `${forged(member)}</md:EntitiesDescriptor>`,
        ),
      );
      await expectMetadataRefused(app, 'Its signature does not verify with MetadataSigningCertificate.');
    });
  });

  it('MetadataMaxBytes bounds what is read: a larger aggregate is refused, naming the key', async () => {
    const { app } = await start(
      (member) => aggregateXml({ members: [member], count: 100, fillerCertificate: filler }),
      {
        [`${SAML}MetadataMaxBytes`]: '65536',
      },
    );
    await expectMetadataRefused(app, 'It is larger than MetadataMaxBytes (65536 bytes).');
  });
});
