import { build } from 'esbuild';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Bundles the entry point (src/bootstrap/main.ts) and what it imports, packages included,
 * into `outdir`. One file loads in a fraction of the time Node takes to resolve and read
 * the few hundred files of node_modules one by one (npm run bench: cold start). What the
 * app imports only when it needs it (the Redis and OpenID Connect adapters, views, static
 * files) becomes chunks of its own, loaded on first use. `outdir`/main.js is the small
 * launcher src/bootstrap/start.ts, which turns Node's compile cache on before it imports
 * the application (a chunk, chunks/main-*.js), so that the cache covers the application too.
 *
 * `outdir` must lie inside the project: the app finds package.json, views/, public/ and
 * config/ by walking up from its own file.
 */
export async function bundleGatehouse(outdir: string): Promise<void> {
  rmSync(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: projectRoot,
    entryPoints: {
      main: join(projectRoot, 'src/bootstrap/start.ts'),
      // The worker thread that reads large SAML metadata (src/adapters/saml/metadata-reader.ts finds it here).
      'saml-metadata-reader': join(projectRoot, 'src/adapters/saml/metadata-reader-worker.ts'),
    },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: join(projectRoot, 'tsconfig.build.json'),
    chunkNames: 'chunks/[name]-[hash]',
    // The packages are CommonJS and call require(); an ES module has none of its own.
    banner: {
      js: "import { createRequire as __gatehouseCreateRequire } from 'node:module'; const require = __gatehouseCreateRequire(import.meta.url);",
    },
    // A development convenience, imported only at a terminal when installed (main.ts).
    external: ['pino-pretty'],
    // Less text to read and parse at every start; names stay, for readable stack traces.
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    legalComments: 'linked',
    logLevel: 'warning',
  });
  // The connection catalog's SQL migrations are read at run time, not imported: they travel
  // with the bundle, so a deployment of dist/ without src/ migrates (src/adapters/postgres/migrate.ts).
  cpSync(join(projectRoot, 'src/adapters/postgres/migrations'), join(outdir, 'migrations'), { recursive: true });
}
