import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { groupOf, startPhases } from '../../../scripts/bench/start-phases.js';

type Frame = { functionName: string; url?: string; columnNumber?: number };

/**
 * Writes a .cpuprofile whose samples are the given stacks (outermost frame first), each
 * sampled for `micros`, beside a bundle file whose source map says where its code came from.
 */
function profileOf(dir: string, samples: [Frame[], number][]): string {
  const nodes: { id: number; callFrame: object; children: number[] }[] = [];
  const idOf = new Map<string, number>();
  const sampleIds: number[] = [];
  for (const [stack] of samples) {
    let parent: number | undefined;
    let path = '';
    for (const frame of [{ functionName: '(root)' }, ...stack]) {
      path += `/${frame.functionName}@${frame.url ?? ''}:${frame.columnNumber ?? 0}`;
      let id = idOf.get(path);
      if (id === undefined) {
        id = nodes.length + 1;
        idOf.set(path, id);
        const callFrame = { lineNumber: 0, columnNumber: 0, url: '', ...frame };
        nodes.push({ id, callFrame, children: [] });
        if (parent !== undefined) nodes[parent - 1]!.children.push(id);
      }
      parent = id;
    }
    sampleIds.push(parent!);
  }
  const file = join(dir, 'start.cpuprofile');
  writeFileSync(file, JSON.stringify({ nodes, samples: sampleIds, timeDeltas: samples.map(([, micros]) => micros) }));
  return file;
}

describe('bench: a cold start profile sorted into phases', () => {
  let dir: string;
  let bundleUrl: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'start-phases-'));
    const bundle = join(dir, 'main.js');
    writeFileSync(bundle, '');
    bundleUrl = pathToFileURL(bundle).href;
    // Column 0 of line 0 maps to nothing (the bundle's runtime); column 10 on, to zod.
    const map = { version: 3, sources: ['../node_modules/zod/lib/index.js'], names: [], mappings: 'A,UAAA' };
    writeFileSync(`${bundle}.map`, JSON.stringify(map));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('names each phase, a composition step by what createGatehouse called, a package by the source map', () => {
    const inBundle = (url: string) => url === bundleUrl;
    const file = profileOf(dir, [
      [[{ functionName: 'main' }, { functionName: 'createGatehouse' }, { functionName: 'loadConfiguration' }], 700],
      [[{ functionName: 'compileSourceTextModule', url: 'node:internal/modules/esm/utils' }], 500],
      [[{ functionName: 'moduleJob', url: 'node:internal/modules/esm/loader' }, { functionName: 'read' }], 300],
      [[{ functionName: 'require_zod', url: bundleUrl, columnNumber: 12 }], 200],
      [[{ functionName: '__commonJS', url: bundleUrl, columnNumber: 1 }], 150],
      [
        [{ functionName: 'parserOnIncoming' }, { functionName: 'lazyUndici', url: 'node:internal/deps/undici/undici' }],
        90,
      ],
      [[{ functionName: 'parserOnIncoming' }, { functionName: 'end' }], 40],
      [[{ functionName: '(garbage collector)' }], 30],
      [[{ functionName: 'prepareExecution', url: 'node:internal/process/pre_execution' }], 20],
    ]);
    expect(Object.fromEntries(startPhases(file, inBundle))).to.deep.equal({
      'composing the app: loadConfiguration': 700,
      'loading the bundle: parsing its ES modules': 500,
      'loading the bundle: finding and reading its files, the built-in modules they import': 300,
      'running the packages’ top-level code: zod': 200,
      'running the packages’ top-level code: compiling each package’s body when first required (esbuild’s wrapper)': 150,
      'the first answer: Node’s fetch (undici)': 90,
      'the first answer: the rest': 40,
      'the garbage collector': 30,
      'Node’s own start': 20,
    });
    expect(groupOf('composing the app: loadConfiguration')).to.equal('composing the app');
  });

  it('counts neither idle time nor the shutdown after the first answer', () => {
    const file = profileOf(dir, [
      [[{ functionName: 'main' }, { functionName: 'createGatehouse' }], 100],
      [[{ functionName: '(idle)' }], 5000],
      [[{ functionName: 'stop' }, { functionName: 'shutdown' }, { functionName: 'close' }], 700],
      [[{ functionName: 'exit' }], 300],
    ]);
    expect(Object.fromEntries(startPhases(file, () => false))).to.deep.equal({
      'composing the app: (its own code)': 100,
    });
  });
});
