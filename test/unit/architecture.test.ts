import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
type Layer = 'domain' | 'application' | 'adapters' | 'bootstrap';

/** What each layer may import: imports point inward only (docs/architecture.md, Layers). */
const allowedLayers: Record<Layer, Layer[]> = {
  domain: ['domain'],
  application: ['application', 'domain'],
  adapters: ['adapters', 'application', 'domain'],
  bootstrap: ['bootstrap', 'adapters', 'application', 'domain'],
};
/** Packages a layer may use: the domain none at all (no Koa, no Node I/O); the application the DI decorators and Oslo's pure hashing and encoding. */
const allowedPackages: Partial<Record<Layer, (specifier: string) => boolean>> = {
  domain: () => false,
  application: (specifier) => specifier === 'tsyringe' || specifier.startsWith('@oslojs/'),
};

interface Violation {
  file: string;
  specifier: string;
}

/** Checks one file's imports against the layer rules (the self-test below proves it can fail). */
function violationsOf(file: string, source: string): Violation[] {
  const layer = relative(join(root, 'src'), file).split(/[\\/]/)[0] as Layer;
  const specifiers = [
    ...source.matchAll(
      /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g,
    ),
  ].map((match) => match[1] ?? match[2] ?? match[3] ?? '');
  return specifiers
    .filter((specifier) => {
      if (specifier.startsWith('.')) {
        const target = relative(join(root, 'src'), resolve(dirname(file), specifier)).split(/[\\/]/)[0] as Layer;
        return !allowedLayers[layer].includes(target);
      }
      const packageRule = allowedPackages[layer];
      return packageRule ? !packageRule(specifier) : false;
    })
    .map((specifier) => ({ file: relative(root, file), specifier }));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('architecture: imports point inward only', () => {
  it('every file in src/ respects the layer rules', () => {
    const violations = sourceFiles(join(root, 'src')).flatMap((file) => violationsOf(file, readFileSync(file, 'utf8')));
    expect(violations).to.deep.equal([]);
  });

  it('nothing but the entry point imports the composition root', () => {
    const importers = sourceFiles(join(root, 'src'))
      .filter((file) => !file.includes(`${join('src', 'bootstrap')}`))
      .filter((file) => /from\s+['"][./]*\/?(?:\.\.\/)+bootstrap\//.test(readFileSync(file, 'utf8')));
    expect(importers).to.deep.equal([]);
  });

  describe('the rule checker itself', () => {
    const cases: Array<[string, string, boolean]> = [
      ['src/domain/x.ts', "import Koa from 'koa';", true],
      ['src/domain/x.ts', "import { readFileSync } from 'node:fs';", true],
      ['src/domain/x.ts', "import type { Logger } from '../application/ports/logger.js';", true],
      ['src/domain/claims/x.ts', "import { ClaimTypes } from './claim-types.js';", false],
      ['src/application/x.ts', "import { createApp } from '../adapters/koa/app.js';", true],
      ['src/application/x.ts', "import { injectable } from 'tsyringe';", false],
      ['src/application/x.ts', "import Router from '@koa/router';", true],
      ['src/adapters/x.ts', "import { buildContainer } from '../bootstrap/container.js';", true],
      ['src/adapters/koa/x.ts', "import { GatehouseError } from '../../domain/errors.js';", false],
      ['src/bootstrap/x.ts', "import { createApp } from '../adapters/koa/app.js';", false],
      ['src/domain/x.ts', "const m = await import('node:fs');", true],
    ];
    for (const [file, source, violates] of cases) {
      it(`${violates ? 'flags' : 'allows'} ${source} in ${file}`, () => {
        expect(violationsOf(join(root, file), source).length > 0).to.equal(violates);
      });
    }
  });
});
