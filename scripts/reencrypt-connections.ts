/**
 * `npm run connections:reencrypt`: the middle step of rotating the key that seals the
 * connection catalog's secrets. Put a new key first in
 * `ProjectTemplate:Administration:EncryptionKeys` (`npm run connections:new-key`), keep the
 * old one after it, run this, then remove the old key. It reads the configuration as the
 * application does (the same files and environment, checked by the same rules), opens the
 * catalog the application writes into (PostgreSQL or the folder), and seals again under the
 * first key every secret sealed under another (src/application/administration/reencrypt-catalog.ts).
 * Safe while instances run: each entry is written at the version it was read at, and the
 * instances open either key. It prints connections' names, keys and counts, never a
 * secret, a key or a connection string; it exits 1 when any entry could not be resealed.
 */
import { reencryptCatalog, type ReencryptOutcome } from '../src/application/administration/reencrypt-catalog.js';
import { catalogForTools } from '../src/bootstrap/catalog-for-tools.js';
import { findProjectRoot } from '../src/bootstrap/project-root.js';
import { builtInProviders } from '../src/bootstrap/provider-catalogue.js';
import { formatProblem, StartupError } from '../src/bootstrap/startup-error.js';
import { validatedConfiguration } from '../src/bootstrap/validated-configuration.js';

let tools;
try {
  const configuration = await validatedConfiguration({
    env: process.env,
    rootDir: findProjectRoot(),
    providers: builtInProviders,
    // The log's own lines (a warning, the catalog out of reach) go to stderr, apart from the report.
    logDestination: { write: (line) => void process.stderr.write(line.endsWith('\n') ? line : `${line}\n`) },
    logStartupErrors: false,
  });
  tools = await catalogForTools(configuration);
} catch (error) {
  if (!(error instanceof StartupError)) throw error;
  console.error(
    `Nothing was resealed: the configuration has problems.\n${error.problems.map((p) => `  ${formatProblem(p)}`).join('\n')}`,
  );
  process.exit(1);
}

try {
  const summary = await reencryptCatalog(
    { catalog: tools.catalog, sealing: tools.sealer, secretKeys: tools.secretKeys, now: () => Date.now() },
    (outcome) => (outcome.kind === 'resealed' ? console.log(describe(outcome)) : console.error(describe(outcome))),
  );
  console.log(
    `${summary.entries} connection(s) in the catalog: ${summary.resealed} resealed, ${summary.current} already under the first key, ${summary.failed} not resealed.`,
  );
  if (summary.failed > 0) {
    console.error('Keep every key those connections were sealed with until they are resealed or given again.');
    process.exitCode = 1;
  }
} catch (error) {
  // The catalog's own errors (CatalogUnavailable) say what failed in words; a driver's may name a host or user.
  const known = error instanceof Error && error.name === 'CatalogUnavailable';
  console.error(
    `The catalog could not be read through: ${known ? error.message : 'an unexpected error'}. Entries already resealed stay resealed; run the command again.`,
  );
  process.exitCode = 1;
} finally {
  await tools.close();
}

function describe(outcome: ReencryptOutcome): string {
  if (outcome.kind === 'resealed')
    return `resealed ${outcome.connection}: ${outcome.keys.join(', ')} (now version ${outcome.version})`;
  return `not resealed ${outcome.connection}: ${outcome.problems
    .map((problem) => (problem.key ? `${problem.key} ${problem.reason}` : problem.reason))
    .join('; ')}`;
}
