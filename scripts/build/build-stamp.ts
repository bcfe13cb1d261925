import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/**
 * Everything the build reads, relative to the project root: the sources (the settings
 * schema among them), the build scripts, the installed packages' exact versions (the
 * bundle contains them), and the compiler settings. A change to anything else (tests,
 * views, public/, config/, docs) needs no new build: views, static files and settings are
 * read from the project folder when the app runs.
 */
export const BUILD_INPUTS = [
  'src',
  'scripts/build',
  'scripts/build.ts',
  'scripts/generate-settings-validator.ts',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
] as const;

/** What the build leaves behind that `npm start` runs. */
export const BUNDLE_ENTRY = 'dist/bundle/main.js';
/** Where the digest of the inputs of the last successful build is kept. */
export const STAMP_PATH = 'dist/build-stamp.json';

/**
 * SHA-256 over the path and content of every input file, in a fixed order. The generated
 * settings validator under src/ counts like any source: the build writes it first and
 * records the digest after that, so an unchanged schema leaves the digest unchanged.
 */
export function buildInputsDigest(root: string): string {
  const hash = createHash('sha256');
  for (const file of inputFiles(root)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** True when the bundle exists and was built from exactly the inputs there are now. */
export function isBuildCurrent(root: string, digest = buildInputsDigest(root)): boolean {
  return existsSync(join(root, BUNDLE_ENTRY)) && readStamp(root) === digest;
}

/** Records `digest` as the inputs of the build that just succeeded. */
export function writeStamp(root: string, digest: string): void {
  const path = join(root, STAMP_PATH);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify({ inputs: digest, builtAt: new Date().toISOString() })}\n`);
}

function readStamp(root: string): string | undefined {
  try {
    const stamp: unknown = JSON.parse(readFileSync(join(root, STAMP_PATH), 'utf8'));
    return typeof stamp === 'object' && stamp !== null && 'inputs' in stamp && typeof stamp.inputs === 'string'
      ? stamp.inputs
      : undefined;
  } catch {
    return undefined; // no stamp yet, or an unreadable one: build
  }
}

/** Input files as `/`-separated paths relative to `root`, sorted; a missing input is simply absent. */
function inputFiles(root: string): string[] {
  const files: string[] = [];
  const visit = (path: string) => {
    const absolute = join(root, path);
    if (!existsSync(absolute)) return;
    if (statSync(absolute).isDirectory()) {
      for (const entry of readdirSync(absolute)) visit(join(path, entry));
    } else {
      files.push(relative(root, absolute).split(sep).join('/'));
    }
  };
  for (const input of BUILD_INPUTS) visit(input);
  return files.sort();
}
