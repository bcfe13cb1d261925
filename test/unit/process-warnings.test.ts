import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe("dropUrlParseDeprecation (the entry point drops Node 24's url.parse() warning that samlify causes)", () => {
  it('drops DEP0169 in either calling form and prints every other warning', () => {
    const script = `
      const { dropUrlParseDeprecation } = await import('./src/bootstrap/process-warnings.ts');
      dropUrlParseDeprecation();
      process.emitWarning('SENTINEL-dropped-1', 'DeprecationWarning', 'DEP0169');
      process.emitWarning('SENTINEL-dropped-2', { type: 'DeprecationWarning', code: 'DEP0169' });
      process.emitWarning('SENTINEL-kept-1', 'DeprecationWarning', 'DEP0005');
      process.emitWarning('SENTINEL-kept-2');
    `;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stderr).not.to.contain('SENTINEL-dropped');
    expect(result.stderr).to.contain('SENTINEL-kept-1');
    expect(result.stderr).to.contain('SENTINEL-kept-2');
  });
});
