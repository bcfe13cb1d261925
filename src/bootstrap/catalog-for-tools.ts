import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ConnectionCatalog } from '../application/ports/connection-catalog.js';
import { catalogDeclarations } from '../adapters/connections/catalog-declarations.js';
import { sectionReader } from '../adapters/connections/connection-section.js';
import { FolderConnectionCatalog } from '../adapters/connections/folder-connection-catalog.js';
import { FolderConnections } from '../adapters/connections/folder-connections.js';
import { SecretSealer } from '../adapters/secrets/secret-sealer.js';
import { error, keyOf } from '../domain/settings/problem.js';
import { StartupError } from './startup-error.js';
import type { ValidatedConfiguration } from './validated-configuration.js';

/** The connection catalog an instance with this configuration writes into, for an operator's command. */
export interface CatalogForTools {
  catalog: ConnectionCatalog;
  /** `Administration:EncryptionKeys`. */
  sealer: SecretSealer;
  /** The connection keys stored sealed (`ClientSecret` ...). */
  secretKeys: readonly string[];
  /** Closes what the catalog holds open (PostgreSQL's pool). */
  close(): Promise<void>;
}

/**
 * The catalog and the sealer of a validated configuration, as composeConnections builds
 * them for the application, without starting it: PostgreSQL when `Database:ConnectionString`
 * is set (its migrations are the application's or `npm run db:migrate`'s, not run here), else
 * the folder of `Authentication:ConnectionsDirectory`. Nothing is watched nor declared to a
 * registry. A StartupError names the missing setting when there is no catalog or no key.
 */
export async function catalogForTools(configuration: ValidatedConfiguration): Promise<CatalogForTools> {
  const { settings, rootDir, logger } = configuration;
  const keys = settings.Administration.EncryptionKeys;
  if (keys.length === 0) {
    throw new StartupError([
      error(
        keyOf('Administration', 'EncryptionKeys'),
        'lists no key: put the new key first and the keys the catalog was sealed with after it (npm run connections:new-key makes one)',
      ),
    ]);
  }
  const sealer = new SecretSealer(keys);
  const reader = sectionReader(configuration.schema);
  const declare = catalogDeclarations(reader, sealer);
  const connectionString = settings.Database.ConnectionString.trim();
  const folderSetting = settings.Authentication.ConnectionsDirectory.trim();
  let catalog: ConnectionCatalog;
  if (connectionString !== '') {
    // Loaded only for a database, as the application does: the driver is not every command's.
    const { PostgresConnectionCatalog } = await import('../adapters/postgres/postgres-connection-catalog.js');
    catalog = new PostgresConnectionCatalog({ connectionString, declare, logger });
  } else if (folderSetting !== '') {
    const folder = resolve(rootDir, folderSetting);
    if (!existsSync(folder) || !statSync(folder).isDirectory()) {
      throw new StartupError([
        error(keyOf('Authentication', 'ConnectionsDirectory'), 'names no folder that can be read'),
      ]);
    }
    catalog = new FolderConnectionCatalog(
      folder,
      new FolderConnections(folder, reader, logger, undefined, undefined, declare),
    );
  } else {
    throw new StartupError([
      error(
        keyOf('Database', 'ConnectionString'),
        'and Authentication:ConnectionsDirectory are both unset: there is no connection catalog (set DATABASE_URL or the folder)',
      ),
    ]);
  }
  return { catalog, sealer, secretKeys: reader.secretKeys, close: () => catalog.close() };
}
