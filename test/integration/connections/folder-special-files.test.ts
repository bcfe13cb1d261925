import { expect } from 'chai';
import { truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { sectionReader, type SectionReader } from '../../../src/adapters/connections/connection-section.js';
import { FolderConnections } from '../../../src/adapters/connections/folder-connections.js';
import { settingsSchema } from '../../../src/adapters/config/settings-schema.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import type { ConnectionDeclaration } from '../../../src/domain/connections/connection.js';
import { eventually, startWithConnections } from '../../support/connection-app.js';
import { oidcSection } from '../../support/connection-declarations.js';
import { ConnectionFolder, readiness } from '../../support/connection-folder.js';
import { makeFifo, releaseFifo, releaseFifoLater } from '../../support/fifo.js';
import { freePort } from '../../support/oidc-app.js';
import type { RunningGatehouse } from '../../support/start-gatehouse.js';

/** Documented: a change takes effect within 5 s. */
const WITHIN_MS = 5_000;
/** How long a pipe waits before a helper process opens it for writing: past the documented 5 s, so waiting on it fails. */
const RELEASED_AFTER_MS = 6_000;

/** The longest the event loop went without running a timer, from start to stop. */
function eventLoopGaps(): { stop(): number } {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(longest, performance.now() - last);
    },
  };
}

/**
 * A customer who can write into the connections folder (a provisioning job copying what
 * they gave, a careless operator) leaves special files there: a named pipe as a secret
 * file or as `<Name>.json`, a file of hundreds of megabytes. Each is refused by name; the
 * instance goes on answering and the folder's other changes still apply.
 */
describe('connections folder: special files', function () {
  this.timeout(30_000);
  let folder: ConnectionFolder;
  let app: RunningGatehouse | undefined;
  const pipes: string[] = [];
  const helpers: Array<{ stop(): void }> = [];

  const fifo = (name: string) => {
    const path = join(folder.path, name);
    makeFifo(path);
    pipes.push(path);
    helpers.push(releaseFifoLater(path, RELEASED_AFTER_MS));
    return path;
  };
  const logged = (text: string) => app?.logs.some((line) => line.includes(text)) === true;

  beforeEach(async () => {
    folder = await ConnectionFolder.create();
    await folder.write('acme', oidcSection('acme', ['acme.com']));
    await folder.write('globex', oidcSection('globex', ['globex.com']));
  });
  afterEach(async () => {
    for (const helper of helpers.splice(0)) helper.stop();
    for (const pipe of pipes.splice(0)) releaseFifo(pipe);
    await app?.close();
    app = undefined;
    await folder.dispose();
  });

  const start = async () => {
    const port = await freePort();
    app = await startWithConnections(port, {}, { ProjectTemplate__Authentication__ConnectionsDirectory: folder.path });
    return app;
  };

  it('refuses a pipe named as a secret file without waiting on it, and goes on answering', async () => {
    const running = await start();
    fifo('initech.client-secret');
    const gaps = eventLoopGaps();
    await folder.write('initech', {
      ...oidcSection('initech', ['initech.com']),
      ClientSecret: undefined,
      ClientSecretFile: 'initech.client-secret',
    });
    const key = `${folder.fileOf('initech')}:ClientSecretFile`;
    await eventually('the pipe refused by name', async () => logged(key), WITHIN_MS);
    const live = await fetch(`${running.url}/health/live`);
    expect(live.status).to.equal(200);
    expect(gaps.stop(), 'the longest the instance stopped answering (ms)').to.be.below(500);
    expect(running.logs.find((line) => line.includes(key))).to.include('not a regular file');
    expect((await readiness(running.url)).connections).to.include({ initech: 'refused', acme: 'idle' });
    await folder.remove('acme');
    await eventually('a later change applied', async () => !('acme' in (await readiness(running.url)).connections));
  });

  it('refuses a pipe named <Name>.json, and a connection deleted after it is still removed', async () => {
    const running = await start();
    fifo('hostile.json');
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // a poll or two with the pipe in the folder
    await folder.remove('globex');
    await eventually(
      'globex removed while the pipe is there',
      async () => !('globex' in (await readiness(running.url)).connections),
      WITHIN_MS,
    );
    expect(running.logs.find((line) => line.includes(`"key":"${join(folder.path, 'hostile.json')}"`))).to.include(
      'not a regular file',
    );
    expect((await fetch(`${running.url}/health/live`)).status).to.equal(200);
  });

  describe('read at start', () => {
    let reader: SectionReader;
    before(async () => {
      reader = sectionReader(await settingsSchema(builtInProviders));
    });
    const noLog = { debug() {}, info() {}, warn() {}, error() {} };
    const declared = (): Promise<ConnectionDeclaration[]> =>
      new FolderConnections(folder.path, reader, noLog, 25).read();
    const problemsOf = (declarations: ConnectionDeclaration[], name: string) =>
      declarations.find((declaration) => declaration.name === name)?.problems.map((p) => `${p.key} ${p.message}`);

    it('refuses pipes at start without waiting on them, and reads the other files', async () => {
      fifo('hostile.json');
      fifo('initech.client-secret');
      await folder.write('initech', {
        ...oidcSection('initech', ['initech.com']),
        ClientSecret: undefined,
        ClientSecretFile: 'initech.client-secret',
      });
      const started = performance.now();
      const declarations = await declared();
      expect(performance.now() - started, 'ms to read the folder').to.be.below(1_000);
      expect(problemsOf(declarations, 'hostile')?.[0]).to.match(/hostile\.json is not a regular file/);
      expect(problemsOf(declarations, 'initech')?.[0]).to.match(
        /initech\.json:ClientSecretFile names something that is not a regular file/,
      );
      expect(declarations.find((declaration) => declaration.name === 'acme')?.problems).to.deep.equal([]);
    });

    it('refuses a connection file of 200 MB and a secret file of 100 KiB quickly, without reading them', async () => {
      await folder.writeText('huge.json', '');
      await truncate(join(folder.path, 'huge.json'), 200 * 1024 * 1024); // sparse: made at once
      await folder.writeText('initech.client-secret', '');
      await truncate(join(folder.path, 'initech.client-secret'), 100 * 1024);
      await folder.write('initech', {
        ...oidcSection('initech', ['initech.com']),
        ClientSecret: undefined,
        ClientSecretFile: 'initech.client-secret',
      });
      const started = performance.now();
      const declarations = await declared();
      expect(performance.now() - started, 'ms to read the folder').to.be.below(300);
      expect(problemsOf(declarations, 'huge')?.[0]).to.match(/huge\.json is larger than 1 MiB/);
      expect(problemsOf(declarations, 'initech')?.[0]).to.match(/ClientSecretFile names a file larger than 64 KiB/);
    });
  });
});
