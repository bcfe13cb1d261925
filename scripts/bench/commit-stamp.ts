import { spawnSync } from 'node:child_process';
import { projectRoot } from './dist-modules.js';

/**
 * The commit a measurement was made on, as tables and baselines name it: the short hash
 * of HEAD, with `+ changes` when the working tree differs from it (then the figures are
 * of code no commit holds). `unknown` outside a git checkout.
 */
export function commitStamp(): string {
  const head = git(['rev-parse', '--short', 'HEAD']);
  if (head === undefined) return 'unknown';
  const status = git(['status', '--porcelain', '--untracked-files=no']);
  return status === '' ? head : `${head} + changes`;
}

function git(args: string[]): string | undefined {
  const run = spawnSync('git', args, { cwd: projectRoot, encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : undefined;
}
