import { expect } from 'chai';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { packageNameFromDirectory, packageNameProblems } from '../../../scripts/new-project/package-name.mjs';

/**
 * npm's own validator, from the installation of the npm on PATH (the one `npm run new`
 * users type): the oracle these rules copy. Found from the npm program itself, not with
 * `npm root -g`, which answers from the Node that runs npm: a Node installed elsewhere (CI's
 * second Node line, from the registry) has no npm beside it.
 */
function npmValidator(): (name: string) => { validForNewPackages: boolean } {
  const program = (process.env.PATH ?? '')
    .split(delimiter)
    .map((dir) => join(dir, 'npm'))
    .find((file) => existsSync(file));
  if (!program) throw new Error('no npm on PATH');
  let dir = dirname(realpathSync(program));
  while (!isNpmPackage(dir)) {
    if (dirname(dir) === dir) throw new Error(`${program} is not part of an npm installation`);
    dir = dirname(dir);
  }
  const path = join(dir, 'node_modules', 'validate-npm-package-name');
  if (!existsSync(path)) throw new Error(`npm's validate-npm-package-name is not at ${path}`);
  return createRequire(import.meta.url)(path);
}

function isNpmPackage(dir: string): boolean {
  const manifest = join(dir, 'package.json');
  return existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'npm';
}

const VALID = [
  'some-package',
  'example.com',
  'under_score',
  '123numeric',
  '@npm/thingy',
  '@jane/foo.js',
  'a',
  'x'.repeat(214),
];

const INVALID: Array<[string, string]> = [
  ['', 'it is empty'],
  ['.hidden', 'it starts with a period'],
  ['-dash', 'it starts with a hyphen'],
  ['_private', 'it starts with an underscore'],
  [' padded', 'it has leading or trailing spaces'],
  ['node_modules', '"node_modules" is a reserved name'],
  ['favicon.ico', '"favicon.ico" is a reserved name'],
  ['http', '"http" is the name of a Node.js core module'],
  ['FS', '"FS" is the name of a Node.js core module'],
  ['x'.repeat(215), 'it has 215 characters, more than 214'],
  ['MyApp', 'it has capital letters'],
  ['crazy!', "it contains one of the characters ~'!()*"],
  ['my app', 'it has characters that are not URL-friendly'],
  ['a/b', 'it has characters that are not URL-friendly'],
  ['@a/b/c', 'it has characters that are not URL-friendly'],
  ['café', 'it has characters that are not URL-friendly'],
  ['@scope/.name', 'its name after the scope starts with a period'],
];

describe('new project: package names (npm rules)', () => {
  for (const name of VALID) {
    it(`accepts "${name.length > 20 ? `${name.slice(0, 8)}... (${name.length})` : name}"`, () => {
      expect(packageNameProblems(name)).to.deep.equal([]);
    });
  }

  for (const [name, reason] of INVALID) {
    it(`refuses "${name.length > 20 ? `${name.slice(0, 8)}... (${name.length})` : name}": ${reason}`, () => {
      expect(packageNameProblems(name).some((problem) => problem.startsWith(reason))).to.equal(
        true,
        packageNameProblems(name).join('; '),
      );
    });
  }

  it("agrees with npm's own validator on every name above", () => {
    const validate = npmValidator();
    const disagreements = [...VALID, ...INVALID.map(([name]) => name)].filter(
      (name) => (packageNameProblems(name).length === 0) !== validate(name).validForNewPackages,
    );
    expect(disagreements).to.deep.equal([]);
  });

  describe('from a directory name', () => {
    const cases: Array<[string, string]> = [
      ['my-app', 'my-app'],
      ['My App', 'my-app'],
      ['Café Crème', 'cafe-creme'],
      ['__init__', 'init'],
      ['.hidden', 'hidden'],
      ['--x--', 'x'],
      ['x!(y)*', 'x-y'],
      ['http', 'http-app'],
      ['node_modules', 'node_modules-app'],
      ['日本語', 'app'],
      ['...', 'app'],
      ['a'.repeat(300), 'a'.repeat(214)],
    ];
    for (const [directory, name] of cases) {
      it(`makes "${directory.length > 20 ? `${directory.slice(0, 8)}...` : directory}" into "${name.length > 20 ? `${name.slice(0, 8)}...` : name}"`, () => {
        expect(packageNameFromDirectory(directory)).to.equal(name);
      });
    }

    it('always makes a name npm accepts', () => {
      const validate = npmValidator();
      for (const [directory] of cases) {
        const name = packageNameFromDirectory(directory);
        expect(validate(name).validForNewPackages, name).to.equal(true);
      }
    });
  });
});
