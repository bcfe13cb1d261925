import { readdirSync, readFileSync, statSync, type Stats } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';

/** What looking at the connections folder needs of the file system. */
export interface FolderFiles {
  list(folder: string): Promise<string[]>;
  /** Undefined when the file is not there (any more). */
  stat(path: string): Promise<Stats | undefined>;
  read(path: string): Promise<string>;
}

/**
 * For the start, before anything is served: blocking calls, one after another, with no
 * round trip through libuv's thread pool per call. For a thousand files, about 25 ms where
 * the asynchronous calls took 120 ms, 32 at a time, and 550 ms one after another
 * (docs/performance.md).
 */
export const blockingFiles: FolderFiles = {
  list: async (folder) => readdirSync(folder),
  stat: async (path) => statSync(path, { throwIfNoEntry: false }),
  read: async (path) => readFileSync(path, 'utf8'),
};

/** While serving: a slow volume (a network mount) must never stall the requests. */
export const nonBlockingFiles: FolderFiles = {
  list: (folder) => readdir(folder),
  stat: (path) => stat(path).catch(() => undefined),
  read: (path) => readFile(path, 'utf8'),
};
