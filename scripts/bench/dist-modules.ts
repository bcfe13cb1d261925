import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The project root: the benchmark always measures the code this checkout compiled. */
export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The compiled modules the benchmark measures, loaded from `dist/` at run time (the
 * bench script builds first) and typed from their sources. A static import would make
 * the type check depend on a build.
 */
export async function loadCompiledGatehouse() {
  // BENCH_DIST: another build of the same sources (a before/after comparison of a change).
  const dist = process.env.BENCH_DIST ?? join(projectRoot, 'dist');
  const load = async (path: string): Promise<unknown> => {
    const file = join(dist, path);
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first (npm run bench does).`);
    return import(pathToFileURL(file).href);
  };
  return {
    ...((await load('bootstrap/gatehouse.js')) as typeof import('../../src/bootstrap/gatehouse.js')),
    ...((await load(
      'adapters/koa/session/session-token.js',
    )) as typeof import('../../src/adapters/koa/session/session-token.js')),
    ...((await load(
      'adapters/koa/session/session-middleware.js',
    )) as typeof import('../../src/adapters/koa/session/session-middleware.js')),
    ...((await load(
      'adapters/logging/buffered-destination.js',
    )) as typeof import('../../src/adapters/logging/buffered-destination.js')),
  };
}
