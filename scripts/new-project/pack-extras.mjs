#!/usr/bin/env node
/**
 * `prepack` / `postpack`: npm pack never ships package-lock.json, and an installed package
 * has its .gitignore renamed, yet a new project needs both (the lockfile for `npm ci`, the
 * ignore rules to keep .env and node_modules out of its repository). Before packing they
 * are copied where package.json `files` ships them (template-manifest.mjs); after packing
 * the copies are removed.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packedSeparatelyName } from './template-files.mjs';
import { PACKED_SEPARATELY, PACKED_SEPARATELY_DIR } from './template-manifest.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const step = process.argv[2];

if (step === 'copy') {
  for (const path of PACKED_SEPARATELY) {
    const target = join(root, packedSeparatelyName(path));
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(root, path), target);
  }
} else if (step === 'remove') {
  rmSync(join(root, PACKED_SEPARATELY_DIR), { recursive: true, force: true });
  // dist/ too, when copying created it and nothing else has been built there.
  const parent = dirname(join(root, PACKED_SEPARATELY_DIR));
  if (existsSync(parent) && readdirSync(parent).length === 0) rmdirSync(parent);
} else {
  console.error('usage: pack-extras.mjs copy|remove');
  process.exit(2);
}
