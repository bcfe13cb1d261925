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

describe("dropSqliteExperimentalWarning (the entry point drops Node 22's warning on loading node:sqlite)", () => {
  it('drops that ExperimentalWarning in either calling form and prints every other warning', () => {
    const script = `
      const { dropSqliteExperimentalWarning } = await import('./src/bootstrap/process-warnings.ts');
      dropSqliteExperimentalWarning();
      process.emitWarning('SQLite is an experimental feature and might change at any time', 'ExperimentalWarning');
      process.emitWarning('SQLite is an experimental feature and might change at any time', { type: 'ExperimentalWarning' });
      process.emitWarning('SENTINEL-kept-1 is an experimental feature', 'ExperimentalWarning');
      process.emitWarning('SQLite is an experimental feature SENTINEL-kept-2', 'DeprecationWarning');
    `;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stderr.match(/SQLite is an experimental feature/g) ?? []).to.have.length(1);
    expect(result.stderr).to.contain('SENTINEL-kept-1');
    expect(result.stderr).to.contain('SENTINEL-kept-2');
  });

  it('leaves no SQLite warning on stderr when the store loads node:sqlite (the Node running the tests, if it has it)', () => {
    const script = `
      const { dropSqliteExperimentalWarning } = await import('./src/bootstrap/process-warnings.ts');
      dropSqliteExperimentalWarning();
      const { loadNodeSqlite } = await import('./src/adapters/sqlite/node-sqlite.ts');
      console.log((await loadNodeSqlite()) ? 'loaded' : 'absent');
    `;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout.trim()).to.be.oneOf(['loaded', 'absent']);
    expect(result.stderr).not.to.contain('SQLite');
  });
});
