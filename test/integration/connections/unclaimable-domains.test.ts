import { expect } from 'chai';
import { startWithConnections } from '../../support/connection-app.js';
import { samlSection } from '../../support/connection-declarations.js';
import { ConnectionFolder, readiness } from '../../support/connection-folder.js';
import { freePort } from '../../support/oidc-app.js';
import type { RunningGatehouse } from '../../support/start-gatehouse.js';

/**
 * Customers write the connections folder: one claims every British company (`*.co.uk`),
 * one every Hotmail user in Britain, one a Japanese public suffix beside its own domain.
 * Each is refused at start with its key and the reason named; an honest one is in force.
 */
describe('connections: a customer claims a public suffix or a consumer mail domain', function () {
  this.timeout(20_000);
  let app: RunningGatehouse;
  let folder: ConnectionFolder;

  before(async () => {
    folder = await ConnectionFolder.create();
    await folder.write('acme', samlSection('acme', ['acme.co.uk', '*.acme.co.uk']));
    await folder.write('suffix', samlSection('suffix', ['*.co.uk']));
    await folder.write('freemail', samlSection('freemail', ['hotmail.co.uk']));
    await folder.write('japan', samlSection('japan', ['japan.example', 'co.jp']));
    app = await startWithConnections(
      await freePort(),
      {},
      {
        ProjectTemplate__Authentication__ConnectionsDirectory: folder.path,
      },
    );
  });
  after(async () => {
    await app?.close();
    await folder?.dispose();
  });

  const refusal = (name: string, index: number) =>
    app.logs
      .map((line) => JSON.parse(line) as { key?: string; msg?: string })
      .find((line) => line.key === `${folder.fileOf(name)}:Domains:${index}`)?.msg;

  it('refuses each, naming the key and the reason, and keeps the honest connection', async () => {
    const { connections } = await readiness(app.url);
    expect(connections.acme).to.equal('idle');
    for (const name of ['suffix', 'freemail', 'japan']) expect(connections[name], name).not.to.equal('idle');
    expect(refusal('suffix', 0)).to.contain('is a public suffix');
    expect(refusal('japan', 1)).to.contain('is a public suffix');
    expect(refusal('freemail', 0)).to.contain('is a consumer mail domain');
  });
});
