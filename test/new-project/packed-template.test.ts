/**
 * The generator without a clone: `npm pack` the template, then `npm exec` its bin from the
 * tarball, as on a machine that has only Node.js and npm. The project it makes must be the
 * one the clone makes, byte for byte.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isLeftOut, PACKED_SEPARATELY_DIR } from '../../scripts/new-project/template-manifest.mjs';
import { generate, removeFolder, run, templateRoot, temporaryFolder } from './generated-project.js';

/** Every file under `dir`, "/"-separated, sorted. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? filesUnder(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
    )
    .sort();
}

/** The generator's own files (its page in docs/ among them): the tarball ships them, projects do not get them. */
const isGeneratorFile = (path: string) =>
  /(^|\/)new-project(\.mjs|\/|\.json$)|^\.mocharc\.new-project\.json$|^docs\/new-application\.md$/.test(path);

describe('new project: from a packed tarball through npm exec', function () {
  this.timeout(5 * 60_000);
  let folder: string;
  let tarball: string;
  const npxFolders = join(homedir(), '.npm', '_npx');

  before(async () => {
    folder = temporaryFolder('packed');
    const packed = await run('npm', ['pack', '--pack-destination', folder], templateRoot);
    expect(packed.status, packed.stderr).to.equal(0);
    tarball = join(folder, packed.stdout.trim().split('\n').pop() ?? '');
    expect(existsSync(tarball), tarball).to.equal(true);
  });
  after(() => {
    removeFolder(folder);
    // npm exec installed the tarball in its cache: remove that copy, and only that one.
    if (!existsSync(npxFolders)) return;
    for (const name of readdirSync(npxFolders)) {
      const manifest = join(npxFolders, name, 'package.json');
      if (existsSync(manifest) && readFileSync(manifest, 'utf8').includes(tarball))
        removeFolder(join(npxFolders, name));
    }
  });

  it('ships the generator and what a project needs, and nothing the manifest leaves out', async () => {
    const listed = await run('tar', ['-tzf', tarball], folder);
    const paths = listed.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.replace(/^package\//, ''));
    expect(paths).to.include.members([
      'package.json',
      'scripts/new-project.mjs',
      'src/bootstrap/main.ts',
      `${PACKED_SEPARATELY_DIR}/gitignore`,
      `${PACKED_SEPARATELY_DIR}/package-lock.json`,
    ]);
    const unexpected = paths.filter(
      (path) => isLeftOut(path) && !isGeneratorFile(path) && !path.startsWith(`${PACKED_SEPARATELY_DIR}/`),
    );
    expect(unexpected).to.deep.equal([]);
    // prepack's copies exist only while packing.
    expect(existsSync(join(templateRoot, PACKED_SEPARATELY_DIR))).to.equal(false);
  });

  it('makes, with no clone, the same project as the clone makes', async () => {
    const elsewhere = join(folder, 'no-clone');
    mkdirSync(elsewhere);
    // npm exec runs the bin where it is typed: the project lands in elsewhere/portal.
    const exec = await run(
      'npm',
      ['exec', '--yes', `--package=${tarball}`, '--', 'create-gatehouse', 'portal', '--authProvider', 'none'],
      elsewhere,
      { timeoutMs: 4 * 60_000 },
    );
    expect(exec.status, exec.stderr).to.equal(0);
    expect(exec.stdout)
      .to.contain(`Created ${join(elsewhere, 'portal')}`)
      .and.contain('npm run demo');
    const fromExec = join(elsewhere, 'portal');
    const fromClone = join(folder, 'clone', 'portal');
    generate(fromClone, { authProvider: 'none' });
    const files = filesUnder(fromExec);
    expect(files).to.deep.equal(filesUnder(fromClone));
    expect(files).to.include.members(['.gitignore', 'package-lock.json', 'src/bootstrap/main.ts']);
    for (const path of files) {
      expect(readFileSync(join(fromExec, path)).equals(readFileSync(join(fromClone, path))), path).to.equal(true);
    }
  });
});
