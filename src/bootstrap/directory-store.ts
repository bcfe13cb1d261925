import { resolve } from 'node:path';
import type { DirectoryStore } from '../application/ports/directory-store.js';
import { isGatehouseError } from '../domain/errors.js';
import { error, keyOf } from '../domain/settings/problem.js';
import { usesEmbeddedDirectoryStore } from '../domain/settings/directory-rules.js';
import { StartupError } from './startup-error.js';
import type { ValidatedConfiguration } from './validated-configuration.js';

/**
 * The store directory sync keeps organizations' directories in: PostgreSQL when a database is
 * configured (its tables made by the catalog's migrations), else the embedded SQLite file of
 * `Directory:EmbeddedFile`, resolved from the project folder (the start's checks refused
 * what it cannot serve: sessions in Redis, a Node.js without node:sqlite). Each adapter is
 * loaded only by an instance that uses it. A file that cannot be opened (another instance
 * holds it, a newer Gatehouse wrote it) stops the start, naming the key.
 */
export async function openDirectoryStore(configuration: ValidatedConfiguration): Promise<DirectoryStore> {
  const { settings, logger, rootDir } = configuration;
  if (!usesEmbeddedDirectoryStore(settings)) {
    const { PostgresDirectoryStore } = await import('../adapters/postgres/postgres-directory-store.js');
    return new PostgresDirectoryStore({ connectionString: settings.Database.ConnectionString.trim(), logger });
  }
  const { SqliteDirectoryStore } = await import('../adapters/sqlite/sqlite-directory-store.js');
  const file = resolve(rootDir, settings.Directory.EmbeddedFile.trim());
  try {
    const store = await SqliteDirectoryStore.open({
      file,
      logger,
      searchMsPerMinute: settings.Directory.EmbeddedSearchMsPerMinute,
    });
    logger.info({ file }, 'directories are kept in the embedded store: this instance alone serves directory sync');
    return store;
  } catch (failure) {
    if (!isGatehouseError(failure) || !failure.code.startsWith('directory.')) throw failure;
    throw new StartupError([error(keyOf('Directory', 'EmbeddedFile'), failure.message)]);
  }
}
