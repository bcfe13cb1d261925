import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { IdentityProvider } from '../application/ports/identity-provider.js';
import { ConnectionAdapters } from '../application/connections/connection-adapters.js';
import { ConnectionRegistry, type ConnectionEvent } from '../application/connections/connection-registry.js';
import { ConfiguredConnections } from '../adapters/connections/configured-connections.js';
import { sectionReader, type SectionReader } from '../adapters/connections/connection-section.js';
import {
  catalogDeclarations,
  catalogDeclarationsNow,
  deferredCatalogDeclaration,
} from '../adapters/connections/catalog-declarations.js';
import { FolderConnectionCatalog } from '../adapters/connections/folder-connection-catalog.js';
import { FolderConnections } from '../adapters/connections/folder-connections.js';
import { SecretSealer } from '../adapters/secrets/secret-sealer.js';
import type { ConnectionCatalog, DeclareEntry } from '../application/ports/connection-catalog.js';
import type { PostgresConnectionCatalog } from '../adapters/postgres/postgres-connection-catalog.js';
import { checkInBackground } from '../application/connections/background-checks.js';
import type { SecretSealing } from '../application/ports/secret-sealing.js';
import type { Connection } from '../domain/connections/connection.js';
import { unclaimableDomains } from '../domain/connections/unclaimable-domains.js';
import { isGatehouseError } from '../domain/errors.js';
import { error, keyOf, type SettingsProblem } from '../domain/settings/problem.js';
import { formatProblem } from './startup-error.js';
import { report, type ValidatedConfiguration } from './validated-configuration.js';

/** The connections of an instance: their adapters (built on first use) and the watching of their folder. */
export interface ComposedConnections {
  adapters: ConnectionAdapters;
  /** Starts applying the folder's and the catalog's changes (after the pipeline is composed); returns the stop. */
  watch(): () => void;
  /** The store the administration API writes into: PostgreSQL when configured, else the folder; none without either. */
  catalog?: ConnectionCatalog;
  /** How a catalog entry becomes a declaration (its secrets opened): the API checks a write with it. */
  declare: DeclareEntry;
  reader: SectionReader;
  sealing?: SecretSealing;
}

/**
 * Composes the connections when the configuration declares any or names a folder of them
 * (undefined otherwise: no lookup is ever made for a connection). The configuration's are
 * checked like every other setting: a refused one stops the start. The folder's are
 * checked one file at a time, at start as later: a refused file is logged and left out,
 * and the instance starts, so that a restart does what a running instance does with the
 * same folder (and one customer's bad file cannot stop every customer's sign-in).
 */
export async function composeConnections(
  configuration: ValidatedConfiguration,
  /** Builds a connection's adapter (IdentityAdapters.forConnection), on its first use. */
  buildAdapter: (connection: Connection) => Promise<IdentityProvider>,
): Promise<ComposedConnections | undefined> {
  const { settings, logger, rootDir } = configuration;
  const { Connections, ConnectionsDirectory } = settings.Authentication;
  const connectionString = settings.Database.ConnectionString.trim();
  if (!settings.Authentication.Enabled) return undefined;
  if (Object.keys(Connections).length === 0 && ConnectionsDirectory.trim() === '' && connectionString === '')
    return undefined;

  const reader = sectionReader(configuration.schema);
  const keys = settings.Administration.EncryptionKeys;
  const sealing = keys.length > 0 ? new SecretSealer(keys) : undefined;
  const declare = catalogDeclarations(reader, sealing);
  const declareNow = catalogDeclarationsNow(reader, sealing);
  // The public suffixes and free mail domains are packages' data: loaded only by an instance with connections.
  const { publicDomainLists } = await import('../adapters/domain-lists/public-domain-lists.js');
  const registry = new ConnectionRegistry(
    {
      environment: configuration.environment,
      protocols: configuration.providers,
      unclaimableDomain: unclaimableDomains(publicDomainLists()),
    },
    reservedNames(configuration),
  );
  // The log redacts the secrets of the connections in force: a refused declaration's were
  // never used (and a customer must not make the log cut its own chosen text out of every
  // line), and a removed connection's are no longer anyone's.
  registry.onEvent((event) => {
    if (event.kind === 'refused') return;
    const values = event.kind === 'removed' ? [] : reader.secretsOf(event.connection.settings);
    configuration.holdSecrets(`connection:${event.connection.id}`, values);
  });
  const startupProblems: SettingsProblem[] = [];
  const configured = new ConfiguredConnections(settings, reader, rootDir);
  for (const event of registry.apply(
    (await configured.read()).map((declaration) => ({ kind: 'declared', declaration })),
  )) {
    if (event.kind === 'refused') startupProblems.push(...event.problems);
    else if (event.kind !== 'removed') startupProblems.push(...event.warnings);
  }
  let folder: FolderConnections | undefined;
  let folderPath = '';
  if (ConnectionsDirectory.trim() !== '') {
    const path = resolve(rootDir, ConnectionsDirectory);
    if (!existsSync(path) || !statSync(path).isDirectory()) {
      startupProblems.push(error(keyOf('Authentication', 'ConnectionsDirectory'), 'names no folder that can be read'));
    } else {
      folder = new FolderConnections(
        path,
        reader,
        logger,
        undefined,
        secretsFolder(configuration, startupProblems),
        declare,
      );
      folderPath = path;
    }
  }
  report(logger, startupProblems, configuration.logStartupErrors);

  if (folder) {
    // At start, one line for the folder (a thousand connections are not a thousand lines),
    // and each refused file by itself, naming its keys, as later changes are.
    const events = registry.apply((await folder.read()).map((declaration) => ({ kind: 'declared', declaration })));
    for (const event of events)
      if (event.kind === 'refused' || event.kind === 'added') logEvent(configuration, event, false);
    logger.info(
      {
        connections: registry.size,
        fromFolder: events.filter((event) => event.kind === 'added').length,
        refused: events.filter((event) => event.kind === 'refused').length,
      },
      'connections read from the folder',
    );
  }
  const database = connectionString === '' ? undefined : await databaseCatalog(configuration, declare);
  if (database) {
    // The database down at start: the connections it holds come when it is back (its watch re-reads it all).
    // The database up without the catalog's tables: no wait brings them, and the start is refused.
    const entries = await database.readEntries().catch(async (failure: unknown) => {
      if (isGatehouseError(failure) && failure.code === 'catalog.not_migrated') {
        await database.close();
        report(logger, [notMigrated(settings.Database.Migrate)], configuration.logStartupErrors);
      }
      logger.error({}, 'the connection catalog cannot be read at start; its connections come when it is back');
      return [];
    });
    // Checked after the start, in the background, each at the latest when a request needs
    // it (ConnectionRegistry.defer): a large catalog's rules are not what readiness waits for.
    registry.defer(
      entries.map((entry) => deferredCatalogDeclaration(entry, database.originOf(entry.name), declareNow)),
    );
    logger.info({ entries: entries.length }, 'connections read from the catalog; checking them after the start');
  }
  // A deferred declaration checked is reported as the start reports the catalog's: a refused
  // one with its problems, an added one by the count once all are checked.
  registry.onEvent((event) =>
    event.deferred ? event.kind === 'refused' && logEvent(configuration, event, false) : logEvent(configuration, event),
  );

  const adapters = new ConnectionAdapters(registry, buildAdapter, logger);
  const catalog: ConnectionCatalog | undefined =
    database ?? (folder ? new FolderConnectionCatalog(folderPath, folder) : undefined);
  return {
    adapters,
    catalog,
    declare,
    reader,
    ...(sealing ? { sealing } : {}),
    watch: () => {
      const apply = (changes: Parameters<typeof registry.apply>[0]) => void registry.apply(changes);
      const stops = [folder?.watch(apply), database?.watch?.(apply), checkInBackground(registry, logger)];
      return () => {
        for (const stop of stops) stop?.();
        void database?.close();
      };
    },
  };
}

/** The PostgreSQL catalog (`Database:ConnectionString`), its migrations run first unless `Database:Migrate` is off. */
async function databaseCatalog(
  configuration: ValidatedConfiguration,
  declare: DeclareEntry,
): Promise<PostgresConnectionCatalog> {
  const { settings, logger, rootDir } = configuration;
  const connectionString = settings.Database.ConnectionString.trim();
  // Loaded only by an instance with a database: the driver is not on every instance's start.
  const { PostgresConnectionCatalog } = await import('../adapters/postgres/postgres-connection-catalog.js');
  if (settings.Database.Migrate) {
    const { migrateCatalog } = await import('../adapters/postgres/migrate.js');
    await migrateCatalog(connectionString, logger, rootDir).catch(() => {
      logger.error({}, 'the connection catalog could not be migrated at start (is the database reachable?)');
    });
  }
  return new PostgresConnectionCatalog({ connectionString, declare, logger });
}

/**
 * The start's refusal when the database answers but has no catalog tables: an instance
 * started anyway would be ready, and answer every administration request with an error,
 * until someone migrates. Unlike a database down, waiting does not fix it.
 */
function notMigrated(migrate: boolean): SettingsProblem {
  return error(
    keyOf('Database', 'Migrate'),
    migrate
      ? 'is true, but the migrations at start failed (the lines above say why) and the database has no connection catalog tables: give the database role the right to create tables, or apply them with `npm run db:migrate` as a role that may'
      : 'is false, and the database has no connection catalog tables: apply its migrations with `npm run db:migrate` (with this configuration) before the application starts, or set Database:Migrate to true',
  );
}

/** `Authentication:ConnectionSecretsDirectory`, absolute, when set and a folder; a problem when set and not one. */
function secretsFolder({ settings, rootDir }: ValidatedConfiguration, problems: SettingsProblem[]): string | undefined {
  const setting = settings.Authentication.ConnectionSecretsDirectory.trim();
  if (setting === '') return undefined;
  const path = resolve(rootDir, setting);
  if (existsSync(path) && statSync(path).isDirectory()) return path;
  problems.push(error(keyOf('Authentication', 'ConnectionSecretsDirectory'), 'names no folder that can be read'));
  return undefined;
}

/** Names a connection may not take (any letter case): every provider kind's key, the enabled providers' schemes, `Cookies`. */
function reservedNames(configuration: ValidatedConfiguration): Set<string> {
  const providers = configuration.settings.Authentication.Providers;
  return new Set(
    [
      'cookies',
      ...configuration.providers.map((record) => record.key),
      ...Object.values(providers).flatMap((section) => (section.Enabled ? [section.Scheme] : [])),
    ].map((name) => name.toLowerCase()),
  );
}

/** A change's log lines: a refusal with each problem, warnings; and, unless `announce` is false, the change itself. */
function logEvent({ logger }: ValidatedConfiguration, event: ConnectionEvent, announce = true): void {
  if (event.kind === 'refused') {
    for (const problem of event.problems) logger.error({ key: problem.key }, formatProblem(problem));
    logger.error(
      { connection: event.name, origin: event.origin },
      'a connection declaration was refused; the earlier version of that connection, if any, stays in force',
    );
    return;
  }
  if (event.kind !== 'removed')
    for (const problem of event.warnings) logger.warn({ key: problem.key }, formatProblem(problem));
  if (!announce) return;
  logger.info(
    { connection: event.connection.name, organization: event.connection.organization, origin: event.connection.origin },
    `connection ${event.kind}`,
  );
}
