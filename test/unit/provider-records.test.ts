import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CATALOGUE = join(root, 'src/bootstrap/provider-catalogue.ts');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The project files a file imports, statically or lazily (`import('./x.js')`). */
function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(/from\s+['"](\.[^'"]+)['"]|import\s*\(\s*['"](\.[^'"]+)['"]\s*\)/g)]
    .map((match) => resolve(dirname(file), (match[1] ?? match[2] ?? '').replace(/\.js$/, '.ts')))
    .filter((path) => existsSync(path));
}

/** Every file reachable from the provider catalogue: the records, and what their factories import. */
function reachableFromCatalogue(): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of importsOf(file)) visit(imported);
  };
  visit(CATALOGUE);
  return seen;
}

/** Files that hold an identity adapter: a class implementing the port, or a social vendor. */
function adapterFiles(files: readonly string[], readSource: (file: string) => string): string[] {
  return files.filter((file) => /implements IdentityProvider\b|:\s*SocialVendor\s*=/.test(readSource(file)));
}

describe('provider records: every identity adapter is reached through a record in the catalogue', () => {
  const files = sourceFiles(join(root, 'src/adapters'));
  const read = (file: string) => readFileSync(file, 'utf8');

  it('has no adapter that no record builds (a provider added without its record)', () => {
    const reachable = reachableFromCatalogue();
    const orphans = adapterFiles(files, read).filter((file) => !reachable.has(file));
    expect(orphans.map((file) => relative(root, file))).to.deep.equal([]);
  });

  it('finds an adapter added without its record (the check can fail)', () => {
    const orphan = join(root, 'src/adapters/example/example-account.ts');
    const source = (file: string) =>
      file === orphan ? 'export const exampleAccount: SocialVendor = { refreshes: false };' : read(file);
    const reachable = reachableFromCatalogue();
    expect(adapterFiles([...files, orphan], source).filter((file) => !reachable.has(file))).to.deep.equal([orphan]);
  });

  it('names only files that exist in the recipe for adding a provider (docs/architecture.md)', () => {
    const page = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
    const start = page.indexOf('## Adding an identity provider');
    expect(start, 'the architecture page has the recipe').to.be.greaterThan(-1);
    const recipe = page.slice(start, page.indexOf('\n## ', start + 1));
    // src/ and test/: a generated project keeps both (it drops the template's generator).
    const paths = [...recipe.matchAll(/`((?:src|test)\/[^`*<>]+\.ts)`/g)].map((match) => match[1] ?? '');
    expect(paths).to.include('src/bootstrap/provider-catalogue.ts');
    expect(paths.filter((path) => !existsSync(join(root, path)))).to.deep.equal([]);
  });
});
