import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { isLeftOut, PACKED_SEPARATELY, REQUIRED } from '../../../scripts/new-project/template-manifest.mjs';

const LEFT_OUT = [
  '.git',
  '.git/HEAD',
  'node_modules/koa/package.json',
  'src/node_modules/x.js',
  'dist/bundle/main.js',
  'coverage/lcov.info',
  'test-artifacts/e2e/login.png',
  'bench-results/bench.json',
  'profile-1.cpuprofile',
  'npm-debug.log',
  'logs/app.log',
  '.env',
  '.env.local',
  '.env.production',
  'config/.env',
  '.npmrc',
  'certs/server.pem',
  'server.key',
  'client.p12',
  'client.pfx',
  'config/appsettings.production.json',
  'config/appsettings.Development.json',
  'gatehouse-0.1.0.tgz',
  '.DS_Store',
  'src/.main.ts.swp',
  'README.md~',
  'scripts/new-project.mjs',
  'scripts/new-project',
  'scripts/new-project/auth-choices.mjs',
  'docs/new-application.md',
  'test/unit/new-project/package-name.test.ts',
  'test/integration/new-project/generate.test.ts',
  'test/new-project/generated-projects.test.ts',
  '.mocharc.new-project.json',
];

const KEPT = [
  '.env.example',
  '.gitignore',
  '.ci/run',
  'config/appsettings.json',
  'package.json',
  'package-lock.json',
  'README.md',
  'src/bootstrap/main.ts',
  'scripts/demo.ts',
  'scripts/new-project-notes.md',
  'docs/connections.md',
  'test/unit/domain/return-url.test.ts',
  'distribution/readme.txt',
  'public/styles.css',
];

describe('new project: what the template manifest leaves out', () => {
  for (const path of LEFT_OUT) it(`leaves out ${path}`, () => expect(isLeftOut(path)).to.equal(true));
  for (const path of KEPT) it(`keeps ${path}`, () => expect(isLeftOut(path)).to.equal(false));

  it('leaves out everything .gitignore keeps out of the repository, and keeps what it lets back in', () => {
    const lines = readFileSync(new URL('../../../.gitignore', import.meta.url), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    expect(lines.length).to.be.greaterThan(5);
    for (const line of lines) {
      if (line.startsWith('!')) {
        expect(isLeftOut(line.slice(1)), line).to.equal(false);
        continue;
      }
      // A file the line ignores: `dir/` -> `dir/file`, `*.x` -> `sample.x`.
      const sample = line.replace(/^\//, '').replace(/\*/g, 'sample').replace(/\/$/, '/file');
      expect(isLeftOut(sample), `${line} (as ${sample})`).to.equal(true);
    }
  });

  it('never leaves out a file every project needs', () => {
    for (const path of [...REQUIRED, ...PACKED_SEPARATELY]) expect(isLeftOut(path), path).to.equal(false);
  });
});
