import { build } from 'esbuild';
import { join, relative } from 'node:path';
import { projectRoot } from './dist-modules.js';

/**
 * scripts/bench/gatehouse-server.ts as one JavaScript file (dist/bench/, so that it finds
 * the project two folders up, as the script does), for servers started under valgrind
 * without `--import tsx`: there tsx's loader took about 3 s of CPU of each start (Node
 * alone 2.5 s, with tsx 5.5 s, before the application loads), and a gate starts three
 * servers or more. The compiled application in dist/ is imported at run time, as before.
 * Returns the file's path relative to the project root.
 */
export async function compiledGatehouseServer(): Promise<string> {
  const outfile = join(projectRoot, 'dist', 'bench', 'gatehouse-server.mjs');
  await build({
    absWorkingDir: projectRoot,
    entryPoints: [join(projectRoot, 'scripts/bench/gatehouse-server.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  return relative(projectRoot, outfile);
}
