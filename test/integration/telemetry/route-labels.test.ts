import { expect } from 'chai';
import { connectionEnv, samlConnection } from '../../support/connection-app.js';
import { startSamlApp, type SamlApp } from '../../support/saml-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';
import { telemetryReaders } from '../../support/telemetry-readers.js';

/** `path` with its letters' case flipped where the bits of `n` say: the spellings a visitor can send. */
function spelling(path: string, n: number): string {
  let bit = 0;
  return path.replace(/[a-z]/gi, (letter) => {
    const flip = (n >> (bit++ % 24)) & 1;
    return flip ? (letter === letter.toLowerCase() ? letter.toUpperCase() : letter.toLowerCase()) : letter;
  });
}

/**
 * A hostile visitor spells provider and connection paths every way they match and asks for
 * paths nobody routes: the request durations are still filed under a few route templates
 * known at start (or none), never under what the visitor typed.
 */
describe('Telemetry: http.route is a template from a fixed set, however the path is spelled', function () {
  this.timeout(60_000);
  let own: SamlTestIdentityProvider;
  let acme: SamlTestIdentityProvider;
  let globex: SamlTestIdentityProvider;
  let app: SamlApp;
  let readers: ReturnType<typeof telemetryReaders>;

  before(async () => {
    [own, acme, globex] = await Promise.all([
      SamlTestIdentityProvider.start(),
      SamlTestIdentityProvider.start(),
      SamlTestIdentityProvider.start(),
    ]);
    readers = telemetryReaders();
    app = await startSamlApp(
      own,
      {
        ProjectTemplate__Telemetry__Enabled: 'true',
        ...connectionEnv('Acme', samlConnection('acme', ['acme.test'], acme)),
        ...connectionEnv('Globex', samlConnection('globex', ['globex.test'], globex)),
      },
      { telemetry: readers.parts },
    );
  });
  after(async () => {
    await app?.close();
    await Promise.all([own?.close(), acme?.close(), globex?.close()]);
  });

  it('files 200 spellings of callback paths and 200 unknown paths under at most the known templates', async () => {
    const paths: string[] = [];
    for (let n = 1; n <= 50; n++) {
      paths.push(
        spelling('/Saml2/Acs', n),
        spelling('/connections/acme/saml2/acs', n * 7919),
        spelling('/connections/globex/saml2/acs', n * 104_729),
        spelling('/Account/Login', n),
        `/no-such-page-${n}`,
        `/connections/nobody${n}/saml2/acs`,
        `/connections/acme/elsewhere-${n}`,
        `/Saml2/Acs/${n}`,
      );
    }
    expect(new Set(paths).size, 'distinct spellings sent').to.be.greaterThan(350);
    for (let i = 0; i < paths.length; i += 20) {
      await Promise.all(paths.slice(i, i + 20).map((path) => fetch(`${app.url}${path}`, { redirect: 'manual' })));
    }

    const points = (await readers.points()).filter((p) => p.metric === 'http.server.request.duration');
    expect(
      points.reduce((sum, p) => sum + p.value, 0),
      'every request timed',
    ).to.equal(paths.length);
    const routes = new Set(points.map((p) => p.attributes['http.route']));
    expect([...routes].sort()).to.deep.equal(
      ['/Account/Login', '/Saml2/Acs', '/connections/:name/saml2/acs', undefined].sort(),
    );
    // One series per route, method and status: a handful, not one per spelling.
    expect(points.length, 'series of http.server.request.duration').to.be.below(12);
    const spans = readers.spans().map((span) => span.name);
    expect(new Set(spans).size, 'distinct server span names').to.be.below(8);
  });
});
