/**
 * `npm run db:migrate`: applies the connection catalog's pending migrations to the database
 * the application is configured with, and prints their names. The application applies
 * them itself at start unless `ProjectTemplate:Database:Migrate` is false; this is for an
 * operator who runs them as a release step instead. Safe to run while instances start:
 * every runner waits for the same advisory lock (src/adapters/postgres/migrate.ts).
 *
 * The configuration is read exactly as the application reads it (the same files and
 * environment, the same precedence, `DATABASE_URL` below `Database:ConnectionString`), so
 * this migrates the database the application uses. The URL holds a password: nothing here
 * prints it, nor the driver's messages, which may name the host and user.
 */
import type { Logger } from '../src/application/ports/logger.js';
import { migrateCatalog } from '../src/adapters/postgres/migrate.js';
import { findProjectRoot } from '../src/bootstrap/project-root.js';
import { builtInProviders } from '../src/bootstrap/provider-catalogue.js';
import { formatProblem, StartupError } from '../src/bootstrap/startup-error.js';
import { validatedConfiguration } from '../src/bootstrap/validated-configuration.js';

const root = findProjectRoot();
let connectionString = '';
try {
  const configuration = await validatedConfiguration({
    env: process.env,
    rootDir: root,
    providers: builtInProviders,
    logDestination: { write: (line) => void process.stderr.write(line.endsWith('\n') ? line : `${line}\n`) },
    logStartupErrors: false,
  });
  connectionString = configuration.settings.Database.ConnectionString.trim();
} catch (error) {
  if (!(error instanceof StartupError)) throw error;
  console.error(
    `No migration was applied: the configuration has problems.\n${error.problems.map((p) => `  ${formatProblem(p)}`).join('\n')}`,
  );
  process.exit(1);
}
if (connectionString === '') {
  console.error(
    'No database is configured: set ProjectTemplate__Database__ConnectionString or DATABASE_URL to a postgresql:// URL.',
  );
  process.exit(1);
}

const logger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (fields, message) => console.error(line(fields, message)),
  error: (fields, message) => console.error(line(fields, message)),
};

try {
  const applied = await migrateCatalog(connectionString, logger, root);
  console.log(
    applied.length === 0
      ? 'The connection catalog is up to date: no migration to apply.'
      : `Applied ${applied.length} migration${applied.length === 1 ? '' : 's'}: ${applied.join(', ')}`,
  );
} catch (error) {
  // Our own errors' messages (CatalogUnavailable, a SQLSTATE, a migration file's name), never the driver's.
  console.error(`The migrations were not applied: ${error instanceof Error ? error.message : 'unknown error'}`);
  process.exit(1);
}

function line(fields: object, message: string): string {
  const reason = 'reason' in fields && typeof fields.reason === 'string' ? ` (${fields.reason})` : '';
  return `${message}${reason}`;
}
