import { basename, isAbsolute, join, resolve } from 'node:path';
import type { DeclareEntry } from '../../application/ports/connection-catalog.js';
import type { ConnectionChange, ConnectionDirectory } from '../../application/ports/connection-directory.js';
import type { Logger } from '../../application/ports/logger.js';
import type { ConnectionDeclaration } from '../../domain/connections/connection.js';
import { error } from '../../domain/settings/problem.js';
import { entryOfFile, isCatalogFile } from './catalog-file.js';
import type { SectionReader } from './connection-section.js';
import { FolderFileKeys } from './folder-file-keys.js';
import { blockingFiles, nonBlockingFiles, type FolderFiles } from './folder-files.js';
import { CONNECTION_FILE_MAX_BYTES, readRegularFile, type FileRefusal } from './regular-file.js';

/** How often the folder is looked at: a change takes effect within this and the time to read it (docs: 5 s). */
export const FOLDER_POLL_MS = 2_000;
/**
 * Files looked at, and read, at the same time: a start with a thousand files waits for the
 * file system a thousand times over if it looks at one at a time (docs/performance.md).
 */
const FILES_AT_ONCE = 32;

/** What a file was when last read: a change to it, or to a secret file it names, is a change of the connection. */
interface Seen {
  signature: string;
  secretFiles: readonly string[];
}

/**
 * Connections from a folder (`Authentication:ConnectionsDirectory`), one `<Name>.json` file
 * each, as operators and provisioning jobs write them; a Kubernetes ConfigMap and Secret
 * mounted as folders are the case designed for (their files are links into a hidden
 * `..data` folder that is swapped whole on an update, which is why the folder is polled
 * and compared rather than watched by events: a swap reaches every file at once, and
 * events do not cross every file system a volume can be). Each poll looks at every file's
 * size and time and reads again only the files that changed (and those whose secret file
 * changed). A folder that cannot be listed changes nothing: a volume gone for a moment
 * must not end every organization's sessions. The start reads the folder with blocking
 * calls (nothing is served yet, and a thousand files are read several times faster);
 * the polls while serving never block (folder-files.ts). Only regular files inside the
 * folder are read, of at most 1 MiB (regular-file.ts), and what a file's `<Key>File` keys
 * may name is FolderFileKeys' rule: a file that breaks them is refused by name, and the
 * others are read all the same.
 */
export class FolderConnections implements ConnectionDirectory {
  readonly name = 'folder';
  readonly #seen = new Map<string, Seen>();
  #unreadableReported = false;
  readonly #fileKeys: FolderFileKeys;

  constructor(
    private readonly folder: string,
    private readonly reader: SectionReader,
    private readonly logger: Logger,
    private readonly pollMs = FOLDER_POLL_MS,
    /** `Authentication:ConnectionSecretsDirectory`: a second folder the files' `<Key>File` keys may name. */
    secretsFolder?: string,
    /** Reads a file the administration API wrote (catalog-file.ts): its secrets sealed, its domains' proofs kept. */
    private readonly declareEntry?: DeclareEntry,
  ) {
    this.#fileKeys = new FolderFileKeys(secretsFolder ? [folder, secretsFolder] : [folder]);
  }

  async read(): Promise<ConnectionDeclaration[]> {
    const changes = (await this.#changes(blockingFiles)) ?? [];
    return changes.flatMap((change) => (change.kind === 'declared' ? [change.declaration] : []));
  }

  watch(onChanges: (changes: ConnectionChange[]) => void): () => void {
    let polling = false;
    let stopped = false;
    const timer = setInterval(() => {
      if (polling) return; // one poll at a time: a slow volume must not pile them up
      polling = true;
      this.#changes(nonBlockingFiles)
        .then((changes) => {
          // A poll still looking when watching stopped (a shutdown, a folder being removed)
          // reports nothing: what it saw half-way is not a change anyone asked for.
          if (!stopped && changes && changes.length > 0) onChanges(changes);
        })
        .catch(() => {
          if (!stopped) this.logger.error({}, 'the connections folder could not be read; connections are unchanged');
        })
        .finally(() => {
          polling = false;
        });
    }, this.pollMs);
    timer.unref();
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }

  /** What changed since the last look; undefined when the folder could not be listed. */
  async #changes(files: FolderFiles): Promise<ConnectionChange[] | undefined> {
    let names: string[];
    try {
      names = (await files.list(this.folder)).filter((name) => name.endsWith('.json') && !name.startsWith('.'));
    } catch {
      if (!this.#unreadableReported) {
        this.logger.error(
          { folder: this.folder },
          'the connections folder cannot be listed; connections are unchanged',
        );
        this.#unreadableReported = true;
      }
      return undefined;
    }
    this.#unreadableReported = false;
    const paths = names.map((file) => join(this.folder, file));
    const present = new Set(paths);
    // Removals first: a file renamed (`acme.json` to `Acme.json` or `acme-corp.json`) gives up its
    // name, domains and identity provider before the new file claims them, as a restart would see it.
    const changes: ConnectionChange[] = [];
    for (const path of [...this.#seen.keys()]) {
      if (present.has(path)) continue;
      this.#seen.delete(path);
      changes.push({ kind: 'removed', name: nameOf(path), origin: path });
    }
    // Then the declarations, in the folder's order whatever order the looks finish in.
    const looked = await inGroups(paths, FILES_AT_ONCE, (path) => this.#look(files, path));
    for (const change of looked) if (change !== undefined) changes.push(change);
    return changes;
  }

  /**
   * The file's declaration when it changed since it was last read (or was never read), else
   * undefined. Whatever happens reading one file is that file's refusal, never the poll's:
   * the other files' changes apply all the same.
   */
  async #look(files: FolderFiles, path: string): Promise<ConnectionChange | undefined> {
    try {
      return await this.#lookAt(files, path);
    } catch {
      this.#seen.set(path, { signature: 'unreadable', secretFiles: [] });
      return { kind: 'declared', declaration: refusedFile(path, 'unreadable') };
    }
  }

  async #lookAt(files: FolderFiles, path: string): Promise<ConnectionChange | undefined> {
    const seenSecretFiles = this.#seen.get(path)?.secretFiles ?? [];
    const signature = await this.#signature(files, path, seenSecretFiles);
    if (signature === undefined || signature === this.#seen.get(path)?.signature) return undefined;
    const { declaration, secretFiles } = await this.#declaration(files, path);
    // With the secret files it names now; the file as looked at before reading it (a change
    // made meanwhile has a signature of its own, so the next look reads the file again).
    const sameSecretFiles =
      secretFiles.length === seenSecretFiles.length &&
      secretFiles.every((file, index) => file === seenSecretFiles[index]);
    const now = sameSecretFiles ? signature : await this.#signature(files, path, secretFiles);
    this.#seen.set(path, { signature: now ?? signature, secretFiles });
    return { kind: 'declared', declaration };
  }

  async #signature(files: FolderFiles, path: string, secretFiles: readonly string[]): Promise<string | undefined> {
    try {
      const parts = [];
      for (const file of [path, ...secretFiles]) {
        const stats = await files.stat(file).catch(() => undefined);
        parts.push(stats ? `${stats.size}:${stats.mtimeMs}:${stats.ino}` : 'missing');
      }
      return parts[0] === 'missing' ? undefined : parts.join('|');
    } catch {
      return undefined;
    }
  }

  async #declaration(
    files: FolderFiles,
    path: string,
  ): Promise<{ declaration: ConnectionDeclaration; secretFiles: string[] }> {
    const name = nameOf(path);
    const read = await readRegularFile(files, path, { maxBytes: CONNECTION_FILE_MAX_BYTES, within: [this.folder] });
    if ('refused' in read) return { declaration: refusedFile(path, read.refused), secretFiles: [] };
    let raw: unknown;
    try {
      raw = JSON.parse(read.text);
    } catch {
      // The parser's message quotes the file, which may hold a secret: name the file only.
      return {
        declaration: { name, origin: path, section: {}, problems: [error(path, 'is not valid JSON')] },
        secretFiles: [],
      };
    }
    if (isCatalogFile(raw)) return { declaration: await this.#catalogDeclaration(name, path, raw), secretFiles: [] };
    return {
      declaration: await this.reader.read(name, raw, path, (value) => this.#fileKeys.read(files, name, value)),
      secretFiles: secretFilesOf(raw, this.folder),
    };
  }

  async #catalogDeclaration(name: string, path: string, raw: Record<string, unknown>): Promise<ConnectionDeclaration> {
    const entry = entryOfFile(name, raw);
    if (entry === undefined || this.declareEntry === undefined) {
      const why =
        entry === undefined
          ? 'carries a $catalog record the administration API did not write: restore the file, or remove the record to make it a hand-written one'
          : 'was written by the administration API, which this instance has off (Administration:Enabled)';
      return { name, origin: path, section: {}, problems: [error(path, why)] };
    }
    return this.declareEntry(entry, path);
  }
}

/** `work` on every item, at most `size` at a time, the results in the items' order. */
async function inGroups<T, R>(items: readonly T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += size) {
    results.push(...(await Promise.all(items.slice(start, start + size).map(work))));
  }
  return results;
}

/** Why a connection file was not read, in words: never a byte of it. */
const FILE_REFUSED: Readonly<Record<FileRefusal, string>> = {
  unreadable: 'cannot be read',
  'not-regular': 'is not a regular file (a pipe, a device, a folder): only regular files are read',
  'too-large': `is larger than ${CONNECTION_FILE_MAX_BYTES / 1024 / 1024} MiB, the most a connection file may hold`,
  outside: 'lies outside the connections folder once its links are followed',
  foreign: 'is not a connection file',
};

function refusedFile(path: string, refusal: FileRefusal): ConnectionDeclaration {
  return { name: nameOf(path), origin: path, section: {}, problems: [error(path, FILE_REFUSED[refusal])] };
}

function nameOf(path: string): string {
  return basename(path, '.json');
}

/** The files a section's `<Key>File` values name, resolved as the reader resolves them. */
function secretFilesOf(raw: unknown, folder: string): string[] {
  if (typeof raw !== 'object' || raw === null) return [];
  return Object.entries(raw).flatMap(([key, value]) =>
    /File$/i.test(key) && typeof value === 'string' && value.trim() !== ''
      ? [isAbsolute(value) ? value : resolve(folder, value)]
      : [],
  );
}
