import type { ConnectionDirectory } from '../../application/ports/connection-directory.js';
import type { ConnectionDeclaration } from '../../domain/connections/connection.js';
import { keyOf } from '../../domain/settings/problem.js';
import type { ProjectTemplateSettings } from '../../domain/settings/settings.js';
import type { SectionReader } from './connection-section.js';

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
    return Object.entries(this.settings.Authentication.Connections).map(([name, section]) => ({
      ...this.reader.read(name, section, keyOf('Authentication', 'Connections', name), this.rootDir),
      fromConfiguration: true,
    }));
  }
}
