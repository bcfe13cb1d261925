import type { ConnectionDirectory } from '../../application/ports/connection-directory.js';
import type { ConnectionDeclaration } from '../../domain/connections/connection.js';
import { keyOf } from '../../domain/settings/problem.js';
import type { ProjectTemplateSettings } from '../../domain/settings/settings.js';
import { resolve } from 'node:path';
import type { FileKeys, SectionReader } from './connection-section.js';
import { blockingFiles } from './folder-files.js';
import { readRegularFile, SECRET_FILE_MAX_BYTES } from './regular-file.js';

/**
 * The connections of the configuration (`Authentication:Connections:<Name>`): read once,
 * with the rest of the configuration; they change with a restart.
 */
export class ConfiguredConnections implements ConnectionDirectory {
  readonly name = 'configuration';

  constructor(
    private readonly settings: ProjectTemplateSettings,
    private readonly reader: SectionReader,
    /** Where a `<Key>File` of a configured connection is relative to: the project folder. */
    private readonly rootDir: string,
  ) {}

  async read(): Promise<ConnectionDeclaration[]> {
    // The one directory the operator alone writes: only its connections may grant the deployment's roles.
    return Promise.all(
      Object.entries(this.settings.Authentication.Connections).map(async ([name, section]) => ({
        ...(await this.reader.read(name, section, keyOf('Authentication', 'Connections', name), this.#fileKeys)),
        fromConfiguration: true,
      })),
    );
  }

  /**
   * A configured `<Key>File` may name any file (the operator wrote it, and it is read once,
   * at start): only regular files of at most 64 KiB, like a connection file's.
   */
  readonly #fileKeys: FileKeys = (value) =>
    readRegularFile(blockingFiles, resolve(this.rootDir, value), { maxBytes: SECRET_FILE_MAX_BYTES });
}
