import { expect } from 'chai';
import { SpanKind } from '@opentelemetry/api';
import { ALLOWED_ATTRIBUTE_KEYS } from '../../../src/adapters/telemetry/instruments.js';
import { SamlBrowser, SP_ENTITY_ID, startSamlApp, type SamlApp } from '../../support/saml-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';
import { telemetryReaders, total } from '../../support/telemetry-readers.js';

/** SAML sign-ins (responses signed with xml-crypto, independently of samlify) as telemetry counts them. */
describe('Telemetry: SAML sign-ins', function () {
  this.timeout(20_000);
  let idp: SamlTestIdentityProvider;
  let app: SamlApp;
  let readers: ReturnType<typeof telemetryReaders>;

  beforeEach(async () => {
    idp = await SamlTestIdentityProvider.start();
    readers = telemetryReaders();
    app = await startSamlApp(idp, { ProjectTemplate__Telemetry__Enabled: 'true' }, { telemetry: readers.parts });
  });
  afterEach(async () => {
    await app.close();
    await idp.close();
  });

  it('counts a refused response as a failed sign-in with its code, and an accepted one as a success', async () => {
    const sentinel = 'SENTINEL-saml-telemetry-4b2d';
    const browser = new SamlBrowser();
    const refusedRequest = await browser.challenge(app);
    const refused = idp.answer(refusedRequest, SP_ENTITY_ID, {
      assertion: { audiences: ['https://elsewhere.example'], nameId: `${sentinel}-refused` },
    });
    const answer = await browser.post(app.acsUrl, refused);
    expect(answer.status).to.equal(400);
    const code = /<code>([a-z_.]+)<\/code>/.exec(await answer.text())?.[1];
    expect(code).to.match(/^idp\./);

    let points = await readers.points();
    const failures = points.filter(
      (p) => p.metric === 'gatehouse.authentication.sign_ins' && p.attributes.outcome === 'failure',
    );
    expect(failures.map((p) => p.attributes)).to.deep.equal([
      { provider: 'Saml2', outcome: 'failure', 'error.type': code },
    ]);
    expect(total(points, 'gatehouse.authentication.sign_ins', { outcome: 'success' })).to.equal(0);

    const accepted = await browser.signIn(app, idp, { assertion: { nameId: `${sentinel}-accepted` } });
    expect(accepted.status).to.equal(302);
    points = await readers.points();
    expect(total(points, 'gatehouse.authentication.sign_ins', { provider: 'Saml2', outcome: 'success' })).to.equal(1);
    expect(total(points, 'gatehouse.authentication.callback.duration', { provider: 'Saml2' })).to.equal(2);
    expect(total(points, 'http.server.request.duration', { 'http.route': '/Saml2/Acs' })).to.equal(2);

    const exported = JSON.stringify({ points, spans: readers.spans().map((s) => [s.name, s.attributes]) });
    expect(exported).to.not.include(sentinel);
    const keys = new Set([...points, ...readers.spans()].flatMap((item) => Object.keys(item.attributes)));
    expect([...keys].filter((key) => !ALLOWED_ATTRIBUTE_KEYS.has(key))).to.deep.equal([]);
  });

  it("times the identity provider's metadata request as a client span of its own", async () => {
    await new SamlBrowser().challenge(app); // the metadata is loaded on first use
    const points = await readers.points();
    expect(
      total(points, 'gatehouse.identity_provider.request.duration', {
        provider: 'Saml2',
        endpoint: 'metadata',
        outcome: 'success',
      }),
    ).to.equal(1);
    const metadata = readers.spans().find((s) => s.name === 'identity_provider.metadata');
    expect(metadata?.kind).to.equal(SpanKind.CLIENT);
    expect(metadata?.attributes).to.include({
      provider: 'Saml2',
      endpoint: 'metadata',
      'http.response.status_code': 200,
    });
  });
});
