import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding package.json, views/, public/ and config/. Found by walking up from
 * this file, so it is the same whether the code runs from src/ (tsx) or dist/ (tsc).
 */
export function findProjectRoot(start: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + start);
    dir = parent;
  }
  return dir;
}
