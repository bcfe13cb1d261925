/**
 * `npm start` skips the build when nothing the build reads changed since the last one.
 * The stamp's rules, on a small project tree in a temporary folder.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  BUILD_INPUTS,
  BUNDLE_ENTRY,
  buildInputsDigest,
  isBuildCurrent,
  writeStamp,
} from '../../scripts/build/build-stamp.js';
import { projectRoot } from '../../scripts/build/bundle-gatehouse.js';

describe('the build stamp (npm start builds only when an input changed)', () => {
  let root: string;
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  /** A tree with every kind of input and some files that are not inputs, built once. */
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'gatehouse-stamp-'));
    write('src/bootstrap/main.ts', 'main');
    write('src/adapters/config/schema.ts', 'schema');
    write('src/adapters/config/settings-validator.generated.ts', 'generated');
    write('scripts/build/bundle-gatehouse.ts', 'bundler');
    write('scripts/build.ts', 'build');
    write('scripts/generate-settings-validator.ts', 'generate');
    for (const file of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json']) write(file, file);
    write('views/home.njk', 'view');
    write('public/styles.css', 'css');
    write('test/unit/a.test.ts', 'test');
    write('README.md', 'readme');
    write('scripts/demo.ts', 'demo');
    write(BUNDLE_ENTRY, 'bundle');
    writeStamp(root, buildInputsDigest(root));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('is current right after a build', () => {
    expect(isBuildCurrent(root)).to.equal(true);
  });

  const inputs = [
    'src/bootstrap/main.ts',
    'src/adapters/config/schema.ts',
    'src/adapters/config/settings-validator.generated.ts',
    'scripts/build/bundle-gatehouse.ts',
    'scripts/build.ts',
    'scripts/generate-settings-validator.ts',
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
  ];
  for (const input of inputs) {
    it(`is stale once ${input} changes`, () => {
      write(input, 'changed');
      expect(isBuildCurrent(root)).to.equal(false);
    });
  }

  it('is stale once a source file is added, removed or renamed', () => {
    write('src/domain/new-rule.ts', 'rule');
    expect(isBuildCurrent(root), 'added').to.equal(false);
    rmSync(join(root, 'src/domain/new-rule.ts'));
    expect(isBuildCurrent(root), 'removed again').to.equal(true);
    rmSync(join(root, 'src/bootstrap/main.ts'));
    write('src/bootstrap/entry.ts', 'main');
    expect(isBuildCurrent(root), 'renamed').to.equal(false);
  });

  it('stays current when only what the app reads at run time, tests or docs change', () => {
    for (const file of ['views/home.njk', 'public/styles.css', 'test/unit/a.test.ts', 'README.md', 'scripts/demo.ts'])
      write(file, 'changed');
    expect(isBuildCurrent(root)).to.equal(true);
  });

  it('is stale without the bundle, without a stamp, or with an unreadable stamp', () => {
    rmSync(join(root, BUNDLE_ENTRY));
    expect(isBuildCurrent(root), 'no bundle').to.equal(false);
    write(BUNDLE_ENTRY, 'bundle');
    rmSync(join(root, 'dist/build-stamp.json'));
    expect(isBuildCurrent(root), 'no stamp').to.equal(false);
    write('dist/build-stamp.json', '{not json');
    expect(isBuildCurrent(root), 'unreadable stamp').to.equal(false);
  });

  it('names inputs that exist in this project (a renamed input would silently stop counting)', () => {
    for (const input of BUILD_INPUTS) expect(existsSync(join(projectRoot, input)), input).to.equal(true);
  });
});
