import { expect } from 'chai';
import { rename, rm, symlink, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ConnectionRegistry, type ConnectionEvent } from '../../../src/application/connections/connection-registry.js';
import type { ConnectionChange } from '../../../src/application/ports/connection-directory.js';
import { sectionReader } from '../../../src/adapters/connections/connection-section.js';
import { FolderConnections } from '../../../src/adapters/connections/folder-connections.js';
import { settingsSchema } from '../../../src/adapters/config/settings-schema.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { CONNECTION_RULES, oidcSection } from '../../support/connection-declarations.js';
import { ConnectionFolder } from '../../support/connection-folder.js';

const POLL_MS = 25;

/**
 * FolderConnections over a real folder, looked at every 25 ms, feeding a registry as the
 * composition root does: what a sequence of file operations leaves in force, compared
 * with what a fresh start on the same folder has.
 */
describe('FolderConnections: a folder as operators and provisioning jobs change it', () => {
  let folder: ConnectionFolder;
  let registry: ConnectionRegistry;
  let directory: FolderConnections;
  let stop: () => void;
  let events: string[];
  let errors: string[];

  const logger = () => ({
    debug() {},
    info() {},
    warn() {},
    error: (fields: object, message: string) => errors.push(`${message} ${JSON.stringify(fields)}`),
  });
  const newDirectory = async () =>
    new FolderConnections(folder.path, sectionReader(await settingsSchema(builtInProviders)), logger(), POLL_MS);
  const summary = (event: ConnectionEvent) =>
    event.kind === 'refused' ? `refused ${event.name}` : `${event.kind} ${event.connection.name}`;

  /** What is in force (name: organization), sorted. */
  const inForce = (of: ConnectionRegistry = registry) =>
    [...of.all()].map((connection) => `${connection.name}:${connection.organization}`).sort();
  /** A fresh start on the folder as it is now: what it would have in force. */
  const freshStart = async () => {
    const fresh = new ConnectionRegistry(CONNECTION_RULES, new Set(['cookies']));
    fresh.apply((await (await newDirectory()).read()).map((declaration) => ({ kind: 'declared', declaration })));
    return inForce(fresh);
  };
  /** Waits for a few polls after the last change: the folder settled. */
  const settled = async () => {
    let seen = -1;
    for (let quiet = 0; quiet < 4;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS * 2));
      quiet = events.length === seen ? quiet + 1 : 0;
      seen = events.length;
    }
  };

  beforeEach(async () => {
    folder = await ConnectionFolder.create();
    registry = new ConnectionRegistry(CONNECTION_RULES, new Set(['cookies']));
    events = [];
    errors = [];
    registry.onEvent((event) => events.push(summary(event)));
    directory = await newDirectory();
    const start = async () => {
      registry.apply((await directory.read()).map((declaration) => ({ kind: 'declared', declaration })));
      stop = directory.watch((changes: ConnectionChange[]) => registry.apply(changes));
    };
    await folder.write('acme', oidcSection('acme', ['acme.com']));
    await start();
  });
  afterEach(async () => {
    stop();
    await folder.dispose();
  });

  it('reads each file at start, and names it by its file', () => {
    expect(inForce()).to.deep.equal(['acme:acme']);
    expect(events).to.deep.equal(['added acme']);
  });

  it('reads a file again only when it changed, and a rewrite with the same meaning changes nothing', async () => {
    await folder.write('acme', oidcSection('acme', ['acme.com']));
    await settled();
    expect(events).to.deep.equal(['added acme']);
    // The same size, written within the same second: told apart all the same.
    await folder.write('acme', oidcSection('acme', ['acme.org']));
    await settled();
    expect(events).to.deep.equal(['added acme', 'changed acme']);
    expect(registry.byName('acme')?.domains).to.deep.equal(['acme.org']);
  });

  it('ignores what is not a connection file: hidden files, other extensions, folders', async () => {
    await folder.writeText('.acme2.json', JSON.stringify(oidcSection('acme2', ['acme2.com'])));
    await folder.writeText('notes.txt', 'hello');
    await folder.writeText('secrets/x.json', JSON.stringify(oidcSection('x', ['x.com'])));
    await settled();
    expect(inForce()).to.deep.equal(['acme:acme']);
  });

  it('keeps a file renamed to another letter case in force (a removal and a declaration in one look)', async () => {
    await rename(folder.fileOf('acme'), folder.fileOf('Acme'));
    await settled();
    expect(inForce()).to.deep.equal(['Acme:acme']);
    expect(events.slice(1), 'never refused for its own old name').to.deep.equal(['removed acme', 'added Acme']);
    expect(inForce()).to.deep.equal(await freshStart());
  });

  it('keeps a connection whose file is renamed, its domains passing to the new name', async () => {
    await rename(folder.fileOf('acme'), folder.fileOf('acme-corp'));
    await settled();
    expect(inForce()).to.deep.equal(['acme-corp:acme']);
    expect(events.slice(1), 'never refused for its own old domains').to.deep.equal(['removed acme', 'added acme-corp']);
    expect(inForce()).to.deep.equal(await freshStart());
  });

  it('takes a file refused for a domain another file held once that file is deleted, as a restart would', async () => {
    await folder.write('acme-v2', oidcSection('acme', ['acme.com'], { Authority: 'https://login.acme-v2.example' }));
    await settled();
    expect(events.at(-1)).to.equal('refused acme-v2');
    await folder.remove('acme');
    await settled();
    expect(inForce()).to.deep.equal(['acme-v2:acme']);
    expect(inForce()).to.deep.equal(await freshStart());
  });

  it('reads a connection again when a secret file it names changes (a rotated Secret), the new value its only secret', async () => {
    await folder.writeText('secrets/acme', 'SENTINEL-first-secret\n');
    await folder.write('acme', {
      ...oidcSection('acme', ['acme.com']),
      ClientSecret: undefined,
      ClientSecretFile: 'secrets/acme',
    });
    await settled();
    const before = registry.byName('acme')?.settings;
    expect(before).to.include({ ClientSecret: 'SENTINEL-first-secret' });
    await folder.writeText('secrets/acme', 'SENTINEL-rotated-secret\n');
    await settled();
    expect(registry.byName('acme')?.settings).to.include({ ClientSecret: 'SENTINEL-rotated-secret' });
    const reader = sectionReader(await settingsSchema(builtInProviders));
    expect(reader.secretsOf(registry.byName('acme')!.settings)).to.deep.equal(['SENTINEL-rotated-secret']);
  });

  it('follows a Kubernetes-style mount: files linked into a data folder that is swapped whole', async () => {
    stop();
    await rm(folder.fileOf('acme'));
    const data = (name: string) => join(folder.path, name);
    await mkdir(data('..2024_01'));
    await folder.writeText('..2024_01/globex.json', JSON.stringify(oidcSection('globex', ['globex.com'])));
    await symlink('..2024_01', data('..data'));
    await symlink('..data/globex.json', folder.fileOf('globex'));
    registry = new ConnectionRegistry(CONNECTION_RULES, new Set(['cookies']));
    directory = await newDirectory();
    registry.apply((await directory.read()).map((declaration) => ({ kind: 'declared', declaration })));
    stop = directory.watch((changes) => registry.apply(changes));
    expect(registry.byName('globex')?.domains).to.deep.equal(['globex.com']);
    // The update: a new data folder, and the ..data link swapped to it in one rename.
    await mkdir(data('..2024_02'));
    await folder.writeText(
      '..2024_02/globex.json',
      JSON.stringify(oidcSection('globex', ['globex.com', 'globex.org'])),
    );
    await symlink('..2024_02', data('..data_tmp'));
    await rename(data('..data_tmp'), data('..data'));
    await settled();
    expect(registry.byName('globex')?.domains).to.deep.equal(['globex.com', 'globex.org']);
  });

  it('changes nothing while the folder cannot be listed, and says so once', async () => {
    const moved = `${folder.path}-away`;
    await rename(folder.path, moved);
    await settled();
    expect(inForce()).to.deep.equal(['acme:acme']);
    expect(errors.filter((line) => line.includes('cannot be listed'))).to.have.length(1);
    await rename(moved, folder.path);
    await settled();
    expect(inForce()).to.deep.equal(['acme:acme']);
  });

  it('removes every connection of a folder listed empty', async () => {
    await folder.remove('acme');
    await settled();
    expect(inForce()).to.deep.equal([]);
    expect(events.at(-1)).to.equal('removed acme');
  });
});
