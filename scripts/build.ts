/**
 * `npm run build`: the settings validator from the schema, then `tsc` (type-check and
 * dist/), then the esbuild bundle dist/bundle/main.js that `npm start` runs, each step
 * announced as it starts and timed when it ends. A successful build records a digest of
 * its inputs (scripts/build/build-stamp.ts says which) in dist/build-stamp.json, taken
 * once the validator is written and before anything reads the sources: an edit made
 * while the build runs leaves a stamp that no longer matches, so the next start builds.
 *
 *   tsx scripts/build.ts               always builds
 *   tsx scripts/build.ts --if-changed  skips the build when the bundle exists and no input
 *                                      changed since the last one (what `npm start` runs)
 *   tsx scripts/build.ts --for-gate    dist/ alone, emitted without the type-check, no bundle
 *                                      and no stamp (npm run perf:gate, which runs dist/ and not
 *                                      the bundle, in CI after npm test type-checked the sources:
 *                                      tsc's output is the same byte for byte, 3 s sooner)
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applicationIdentity } from '../src/bootstrap/application-identity.js';
import { buildInputsDigest, isBuildCurrent, writeStamp } from './build/build-stamp.js';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const name = applicationIdentity(projectRoot).displayName;

const ifChanged = process.argv.includes('--if-changed');
const forGate = process.argv.includes('--for-gate');
if (ifChanged && isBuildCurrent(projectRoot)) {
  console.log(`${name}: the build is up to date (nothing it is built from changed since the last build); starting.`);
  process.exit(0);
}
// Loaded only for a build: the check above is all a start with nothing changed pays for.
const { bundleGatehouse } = await import('./build/bundle-gatehouse.js');
const { GENERATED_VALIDATOR_PATH, settingsValidatorSource } = await import('./build/settings-validator-source.js');

const started = performance.now();
console.log(
  ifChanged ? `Building ${name}: it was never built, or what it is built from changed since.` : `Building ${name}.`,
);
await step(`1/${forGate ? 2 : 3} settings validator from the schema`, async () =>
  writeFileSync(join(projectRoot, GENERATED_VALIDATOR_PATH), settingsValidatorSource()),
);
// The digest of what the bundle is built from, the regenerated validator included.
const inputs = buildInputsDigest(projectRoot);
const tsc = [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'];
if (forGate) {
  await step('2/2 compile without type-check (tsc --noCheck), for the performance gate', () =>
    run(process.execPath, [...tsc, '--noCheck']),
  );
  console.log(`Built dist/ in ${seconds(started)} (no bundle, no stamp: npm start builds again).`);
  process.exit(0);
}
await step('2/3 type-check and compile (tsc)', () => run(process.execPath, tsc));
await step('3/3 bundle for npm start (esbuild)', () => bundleGatehouse(join(projectRoot, 'dist', 'bundle')));
writeStamp(projectRoot, inputs);
console.log(`Built in ${seconds(started)}.`);

/** Prints what is about to happen, then how long it took; a failed step ends the build with exit code 1. */
async function step(label: string, work: () => Promise<void>): Promise<void> {
  const begun = performance.now();
  console.log(`  ${label} ...`);
  try {
    await work();
  } catch (error) {
    console.error(`  ${label} failed${error instanceof Error ? `: ${error.message}` : ''}`);
    process.exit(1);
  }
  console.log(`  ${label}: done in ${seconds(begun)}`);
}

/** Runs a command in the project root with this terminal as its output (tsc's errors show as tsc prints them). */
function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: projectRoot, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit code ${String(code)}`))));
  });
}

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}
