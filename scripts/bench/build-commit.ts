/**
 * A build of another commit, for the bench's comparison rows (BENCH_COMPARE=<commit>):
 * the commit's files (git archive, so no worktree is registered) under bench-results/commits/<hash>/,
 * its own packages installed (npm ci) and built (npm run build), once; later runs reuse
 * it. The rows then load that build's dist/ (BENCH_DIST) into this checkout's bench
 * server, so both builds are measured by the same harness in the same rounds.
 *
 *   tsx scripts/bench/build-commit.ts <commit>     prints the dist/ folder
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from './dist-modules.js';

export interface CommitBuild {
  /** The commit's short hash. */
  commit: string;
  /** Its compiled code, for BENCH_DIST. */
  dist: string;
}

export function buildCommit(commit: string): CommitBuild {
  const hash = run('git', ['rev-parse', '--short', `${commit}^{commit}`], projectRoot).trim();
  const dir = join(projectRoot, 'bench-results', 'commits', hash);
  const dist = join(dir, 'dist');
  if (existsSync(join(dist, 'bootstrap', 'gatehouse.js'))) return { commit: hash, dist };
  mkdirSync(join(projectRoot, 'bench-results', 'commits'), { recursive: true });
  if (!existsSync(join(dir, 'package.json'))) {
    mkdirSync(dir, { recursive: true });
    const archive = spawnSync('git', ['archive', '--format=tar', hash], { cwd: projectRoot, maxBuffer: 1 << 30 });
    if (archive.status !== 0) throw new Error(`git archive ${hash} failed: ${archive.stderr.toString()}`);
    const unpack = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout });
    if (unpack.status !== 0) throw new Error(`unpacking ${hash} failed: ${unpack.stderr.toString()}`);
  }
  process.stdout.write(`building ${hash} in ${dir} (npm ci, npm run build) ...`);
  run('npm', ['ci', '--no-audit', '--no-fund'], dir);
  run('npm', ['run', 'build'], dir);
  process.stdout.write(' done\n');
  return { commit: hash, dist };
}

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 600_000 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${result.stderr}`);
  return result.stdout;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const commit = process.argv[2];
  if (!commit) throw new Error('usage: tsx scripts/bench/build-commit.ts <commit>');
  console.log(buildCommit(commit).dist);
}
