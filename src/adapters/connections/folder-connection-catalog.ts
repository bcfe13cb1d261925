import { randomBytes } from 'node:crypto';
import { open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type {
  CatalogEntry,
  CatalogPage,
  CatalogQuery,
  CatalogWrite,
  ConnectionCatalog,
  DomainClaim,
  ExpectedVersion,
  PutOutcome,
  RemoveOutcome,
} from '../../application/ports/connection-catalog.js';
import type { ConnectionChange } from '../../application/ports/connection-directory.js';
import type { ConnectionDeclaration } from '../../domain/connections/connection.js';
import { entryOfFile, fileOfEntry, isCatalogFile } from './catalog-file.js';
import type { FolderConnections } from './folder-connections.js';
import { nonBlockingFiles } from './folder-files.js';
import { CONNECTION_FILE_MAX_BYTES, readRegularFile } from './regular-file.js';

/** What a `<Name>.json` of the folder is to the catalog: the API's entry, a hand-written file, or nothing readable. */
type FolderFile = { kind: 'entry'; path: string; entry: CatalogEntry } | { kind: 'hand-written'; path: string };

/**
 * The folder as a catalog: the embedded default, for `npm run demo` and a single instance.
 * A write is one `<Name>.json` file, written whole to a hidden temporary file of the folder
 * and renamed over the old one (a rename within one file system is atomic: the poll, and a
 * reader of any instance sharing the folder, sees the old file or the new, never half of
 * one). The file carries the API's mark (catalog-file.ts); a file without it is the
 * operator's, and the API neither changes nor removes it. Writes of one instance are one
 * at a time, so a version read is the version replaced; two instances writing one folder
 * can both pass the check (the folder has no lock across hosts): run several instances on
 * PostgreSQL. Reading (the registry's start and the poll) is FolderConnections', which
 * reads the API's files through the same rules as hand-written ones.
 */
export class FolderConnectionCatalog implements ConnectionCatalog {
  readonly name = 'folder';
  #writing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly folder: string,
    private readonly directory: FolderConnections,
  ) {}

  read(): Promise<ConnectionDeclaration[]> {
    return this.directory.read();
  }

  watch(onChanges: (changes: ConnectionChange[]) => void): () => void {
    return this.directory.watch(onChanges);
  }

  /** A file's path is its origin, as for a hand-written file. */
  originOf(name: string): string {
    return join(this.folder, `${name}.json`);
  }

  async get(name: string): Promise<CatalogEntry | undefined> {
    const file = await this.#find(name);
    return file?.kind === 'entry' ? file.entry : undefined;
  }

  async list(query: CatalogQuery): Promise<CatalogPage> {
    const entries = (await this.#entries())
      .filter((entry) => query.after === undefined || entry.name.toLowerCase() > query.after)
      .filter((entry) => query.organization === undefined || entry.keys.Organization === query.organization)
      .filter((entry) => query.domain === undefined || domainsOf(entry).includes(query.domain));
    const page = entries.slice(0, query.limit);
    const last = page.at(-1);
    return entries.length > query.limit && last ? { entries: page, next: last.name.toLowerCase() } : { entries: page };
  }

  async claimsOf(domain: string, exceptName: string): Promise<DomainClaim[]> {
    const except = exceptName.toLowerCase();
    return (await this.#entries())
      .filter((entry) => entry.name.toLowerCase() !== except && domainsOf(entry).includes(domain))
      .map((entry) => ({
        name: entry.name,
        organization: String(entry.keys.Organization ?? ''),
        verified: entry.domains.some((proof) => proof.domain === domain && proof.verifiedAt !== undefined),
      }));
  }

  async dueForRecheck(before: number, limit: number): Promise<CatalogEntry[]> {
    return (await this.#entries())
      .filter((entry) =>
        entry.domains.some(
          (proof) => proof.verifiedAt !== undefined && (proof.checkedAt === undefined || proof.checkedAt < before),
        ),
      )
      .slice(0, limit);
  }

  put(write: CatalogWrite, expected: ExpectedVersion, at: number): Promise<PutOutcome> {
    return this.#oneAtATime(async () => {
      const current = await this.#find(write.name);
      if (current?.kind === 'hand-written') return { kind: 'conflict', currentVersion: undefined };
      const currentVersion = current?.entry.version;
      if (expected !== undefined && expected !== (currentVersion ?? 0)) return { kind: 'conflict', currentVersion };
      const entry: CatalogEntry = { ...write, version: (currentVersion ?? 0) + 1, updatedAt: at };
      // A name rewritten in another letter case replaces the file it had: one file per connection.
      const path = this.originOf(write.name);
      await writeAtomically(this.folder, path, fileOfEntry(entry));
      if (current && current.path !== path) await unlink(current.path).catch(() => undefined);
      return { kind: 'written', entry, created: current === undefined };
    });
  }

  remove(name: string, expected: ExpectedVersion): Promise<RemoveOutcome> {
    return this.#oneAtATime(async () => {
      const current = await this.#find(name);
      if (current?.kind !== 'entry') return { kind: 'absent' };
      if (expected !== undefined && expected !== current.entry.version)
        return { kind: 'conflict', currentVersion: current.entry.version };
      await unlink(current.path);
      return { kind: 'removed' };
    });
  }

  /** The folder is read at every call: nothing to lose but the folder itself. */
  health(): 'up' | 'degraded' {
    return 'up';
  }

  async close(): Promise<void> {}

  #oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#writing.then(work, work);
    this.#writing = next.catch(() => undefined);
    return next;
  }

  /** The API's entries in the folder, by name in lower case. */
  async #entries(): Promise<CatalogEntry[]> {
    const files = await Promise.all((await this.#fileNames()).map((file) => this.#readFile(join(this.folder, file))));
    return files
      .flatMap((file) => (file?.kind === 'entry' ? [file.entry] : []))
      .sort((a, b) => compare(a.name.toLowerCase(), b.name.toLowerCase()));
  }

  async #find(name: string): Promise<FolderFile | undefined> {
    const wanted = `${name.toLowerCase()}.json`;
    const file = (await this.#fileNames()).find((candidate) => candidate.toLowerCase() === wanted);
    return file === undefined ? undefined : ((await this.#readFile(join(this.folder, file))) ?? undefined);
  }

  async #fileNames(): Promise<string[]> {
    return (await readdir(this.folder)).filter((file) => file.endsWith('.json') && !file.startsWith('.'));
  }

  /** Undefined for a file that cannot be read or is not JSON: neither the API's nor anyone's to replace blindly. */
  async #readFile(path: string): Promise<FolderFile | undefined> {
    const read = await readRegularFile(nonBlockingFiles, path, {
      maxBytes: CONNECTION_FILE_MAX_BYTES,
      within: [this.folder],
    });
    if ('refused' in read) return { kind: 'hand-written', path };
    let raw: unknown;
    try {
      raw = JSON.parse(read.text);
    } catch {
      return { kind: 'hand-written', path };
    }
    if (!isCatalogFile(raw)) return { kind: 'hand-written', path };
    const entry = entryOfFile(basename(path, '.json'), raw);
    return entry ? { kind: 'entry', path, entry } : { kind: 'hand-written', path };
  }
}

function domainsOf(entry: CatalogEntry): string[] {
  return Array.isArray(entry.keys.Domains) ? entry.keys.Domains.filter((d): d is string => typeof d === 'string') : [];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Writes `text` to `path` through a hidden temporary file of the same folder, flushed, then renamed over it. */
async function writeAtomically(folder: string, path: string, text: string): Promise<void> {
  const temporary = join(folder, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}
