import { expect } from 'chai';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ConfiguredConnections } from '../../../src/adapters/connections/configured-connections.js';
import { sectionReader, type SectionReader } from '../../../src/adapters/connections/connection-section.js';
import { namesConnection } from '../../../src/adapters/connections/folder-file-keys.js';
import { FolderConnections } from '../../../src/adapters/connections/folder-connections.js';
import { settingsSchema } from '../../../src/adapters/config/settings-schema.js';
import type { ConnectionChange } from '../../../src/application/ports/connection-directory.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import type { ConnectionDeclaration } from '../../../src/domain/connections/connection.js';
import { defaultSettings } from '../../../src/domain/settings/default-settings.js';
import { oidcSection } from '../../support/connection-declarations.js';
import { ConnectionFolder } from '../../support/connection-folder.js';

const ACME_SECRET = 'SENTINEL-acme-own-secret-4b1d';
const GLOBEX_SECRET = 'SENTINEL-globex-secret-acme-wants-9e2c';
const ELSEWHERE_SECRET = 'SENTINEL-secret-in-another-folder-73fa';
const ENVIRON_SECRET = 'SENTINEL-process-environment-5d08';

/**
 * Acme's administrator writes Acme's connection file (through a setup portal, or a
 * provisioning job that copies what they gave) and points its `ClientSecretFile` at
 * something that is not Acme's: Globex's client secret beside it, a key in another folder,
 * the process's environment. Whatever the file names would be sent, as Acme's client
 * secret, to Acme's own identity provider; each is refused, naming the file and the key,
 * never a byte of what it names.
 */
describe('connections folder: what a file key may name', () => {
  let folder: ConnectionFolder;
  let elsewhere: string;
  let reader: SectionReader;
  const noLog = { debug() {}, info() {}, warn() {}, error() {} };

  before(async () => {
    reader = sectionReader(await settingsSchema(builtInProviders));
  });
  beforeEach(async () => {
    folder = await ConnectionFolder.create();
    elsewhere = await mkdtemp(join(tmpdir(), 'gatehouse-elsewhere-'));
    await folder.writeText('acme.client-secret', `${ACME_SECRET}\n`);
    await folder.writeText('globex.client-secret', `${GLOBEX_SECRET}\n`);
    await folder.write(
      'globex',
      oidcSection('globex', ['globex.com'], { ClientSecret: undefined, ClientSecretFile: 'globex.client-secret' }),
    );
    await writeFile(join(elsewhere, 'acme.client-secret'), ELSEWHERE_SECRET);
  });
  afterEach(async () => {
    await folder.dispose();
    await rm(elsewhere, { recursive: true, force: true });
  });

  /** Acme's file naming `path` as its client secret. */
  const acmeNaming = (path: string) =>
    folder.write('acme', { ...oidcSection('acme', ['acme.com']), ClientSecret: undefined, ClientSecretFile: path });
  const atStart = async (secretsFolder?: string) =>
    new FolderConnections(folder.path, reader, noLog, 25, secretsFolder).read();
  const acmeOf = (declarations: ConnectionDeclaration[]) => {
    const acme = declarations.find((declaration) => declaration.name === 'acme');
    if (!acme) throw new Error('acme not declared');
    return { secret: acme.section.ClientSecret, problems: acme.problems.map((p) => `${p.key} ${p.message}`) };
  };
  /** Acme refused for its ClientSecretFile with `words`, nothing read into ClientSecret, no secret in the words. */
  const expectRefused = (acme: { secret: unknown; problems: string[] }, words: string) => {
    expect(acme.secret, 'nothing read into ClientSecret').to.equal(undefined);
    expect(acme.problems).to.have.length(1);
    expect(acme.problems[0])
      .to.include(`${folder.fileOf('acme')}:ClientSecretFile names`)
      .and.include(words);
    for (const secret of [GLOBEX_SECRET, ELSEWHERE_SECRET, ENVIRON_SECRET])
      expect(acme.problems[0]).not.to.include(secret);
  };

  it('reads a file of its own, in the folder', async () => {
    await acmeNaming('acme.client-secret');
    expect(acmeOf(await atStart())).to.deep.equal({ secret: ACME_SECRET, problems: [] });
  });

  it("refuses another connection's secret file in the folder, and the other connection still reads it", async () => {
    await acmeNaming('globex.client-secret');
    const declarations = await atStart();
    expectRefused(acmeOf(declarations), "not this connection's");
    const globex = declarations.find((declaration) => declaration.name === 'globex');
    expect(globex?.section.ClientSecret).to.equal(GLOBEX_SECRET);
  });

  it('refuses a name that only starts like its own (acme is not acme-corp)', async () => {
    await folder.writeText('acme-corp.client-secret', 'SENTINEL-acme-corp');
    await acmeNaming('acme-corp.client-secret');
    expectRefused(acmeOf(await atStart()), "not this connection's");
  });

  it('refuses /proc/self/environ, whose values would be sent as the client secret', async () => {
    process.env.GATEHOUSE_TEST_ENVIRON_SECRET = ENVIRON_SECRET;
    try {
      await acmeNaming('/proc/self/environ');
      expectRefused(acmeOf(await atStart()), 'outside the connections folder');
    } finally {
      delete process.env.GATEHOUSE_TEST_ENVIRON_SECRET;
    }
  });

  it('refuses a file in another folder, by absolute or relative path, unless that folder is ConnectionSecretsDirectory', async () => {
    await acmeNaming(join(elsewhere, 'acme.client-secret'));
    expectRefused(acmeOf(await atStart()), 'outside the connections folder');
    expect(acmeOf(await atStart(elsewhere))).to.deep.equal({ secret: ELSEWHERE_SECRET, problems: [] });
    await acmeNaming(relative(folder.path, join(elsewhere, 'acme.client-secret')));
    expectRefused(acmeOf(await atStart()), 'outside the connections folder');
  });

  it('refuses a link in the folder pointing out of it, however it is named', async () => {
    await symlink(join(elsewhere, 'acme.client-secret'), join(folder.path, 'acme.linked-secret'));
    await acmeNaming('acme.linked-secret');
    expectRefused(acmeOf(await atStart()), 'links followed');
  });

  it('refuses a link in the secrets folder pointing out of both folders', async () => {
    const secrets = await mkdtemp(join(tmpdir(), 'gatehouse-secrets-'));
    try {
      await symlink(join(elsewhere, 'acme.client-secret'), join(secrets, 'acme.client-secret'));
      await acmeNaming(join(secrets, 'acme.client-secret'));
      expectRefused(acmeOf(await atStart(secrets)), 'links followed');
    } finally {
      await rm(secrets, { recursive: true, force: true });
    }
  });

  it('reads a secrets folder mounted as Kubernetes mounts a Secret (links into a ..data folder)', async () => {
    const secrets = await mkdtemp(join(tmpdir(), 'gatehouse-secrets-'));
    try {
      await mkdir(join(secrets, '..2026_11_28'));
      await writeFile(join(secrets, '..2026_11_28', 'acme.client-secret'), `${ELSEWHERE_SECRET}\n`);
      await symlink('..2026_11_28', join(secrets, '..data'));
      await symlink('..data/acme.client-secret', join(secrets, 'acme.client-secret'));
      await acmeNaming(join(secrets, 'acme.client-secret'));
      expect(acmeOf(await atStart(secrets))).to.deep.equal({ secret: ELSEWHERE_SECRET, problems: [] });
    } finally {
      await rm(secrets, { recursive: true, force: true });
    }
  });

  it('applies the same rules to a file changed while the folder is polled', async () => {
    const directory = new FolderConnections(folder.path, reader, noLog, 25);
    await directory.read();
    const changes: ConnectionChange[] = [];
    const stop = directory.watch((seen) => changes.push(...seen));
    try {
      await acmeNaming('/proc/self/environ');
      for (let waited = 0; changes.length === 0 && waited < 3_000; waited += 25)
        await new Promise((resolve) => setTimeout(resolve, 25));
      const declared = changes.flatMap((change) => (change.kind === 'declared' ? [change.declaration] : []));
      expectRefused(acmeOf(declared), 'outside the connections folder');
    } finally {
      stop();
    }
  });

  it("keeps any path for a connection of the deployment's own configuration (the operator wrote it)", async () => {
    const settings = defaultSettings(builtInProviders);
    const section = oidcSection('acme', ['acme.com'], { ClientSecret: undefined });
    const configured = {
      ...settings,
      Authentication: {
        ...settings.Authentication,
        Connections: { Acme: { ...section, ClientSecretFile: join(elsewhere, 'acme.client-secret') } },
      },
    };
    const [acme] = await new ConfiguredConnections(configured, reader, folder.path).read();
    expect(acme?.problems).to.deep.equal([]);
    expect(acme?.section.ClientSecret).to.equal(ELSEWHERE_SECRET);
  });

  it('tells a path of the connection from one that only looks like it', () => {
    const cases: Array<[path: string, owned: boolean]> = [
      ['acme', true],
      ['Acme.client-secret', true],
      ['acme_signing.pem', true],
      ['secrets/acme', true],
      ['acme/client-secret', true],
      ['..data/acme.client-secret', true],
      ['acme-corp.client-secret', false],
      ['acmeclient-secret', false],
      ['globex.client-secret', false],
      ['globex/secret', false],
    ];
    for (const [path, owned] of cases) expect(namesConnection(path, 'acme'), path).to.equal(owned);
  });
});
