import { expect } from 'chai';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { anchorsOf, documentationFiles, linkTargets, readDoc, root } from './markdown.js';

/** Why a relative link from `from` to `target` does not resolve, or undefined when it does. */
function brokenLink(from: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto: ...: not a file of the project
  const [pathPart = '', anchor] = target.split('#', 2);
  const path = pathPart === '' ? from : normalize(join(dirname(from), decodeURIComponent(pathPart)));
  if (path.startsWith('..')) return 'points outside the project';
  if (!existsSync(join(root, path))) return `${path} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!path.endsWith('.md') || statSync(join(root, path)).isDirectory())
    return 'an anchor into a file that is not Markdown';
  return anchorsOf(readDoc(path)).has(anchor) ? undefined : `${path} has no heading #${anchor}`;
}

describe('documentation links', () => {
  const files = documentationFiles();

  it('finds the README and the docs', () => {
    expect(files).to.include('README.md').and.to.include('docs/configuration.md');
  });

  it('resolves every relative link in README.md and docs/ to a file of the project, and its anchor to a heading', () => {
    const broken = files.flatMap((file) =>
      linkTargets(readDoc(file)).flatMap((target) => {
        const why = brokenLink(file, target);
        return why === undefined ? [] : [`${file}: (${target}) ${why}`];
      }),
    );
    expect(broken).to.deep.equal([]);
  });
});
