import {
  close,
  closeSync,
  fstat,
  fstatSync,
  open,
  openSync,
  read,
  readdirSync,
  readSync,
  realpath,
  realpathSync,
  statSync,
} from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { FileCalls } from './regular-file.js';

/**
 * What looking at the connections folder needs of the file system: listing it, and the
 * calls reading a file with every check takes (regular-file.ts).
 */
export interface FolderFiles extends FileCalls {
  list(folder: string): Promise<string[]>;
}

/**
 * For the start, before anything is served: blocking calls, one after another, with no
 * round trip through libuv's thread pool per call. For a thousand files, about 25 ms where
 * the asynchronous calls took 120 ms, 32 at a time, and 550 ms one after another
 * (docs/performance.md). None of them can wait on a file: a pipe or a device is opened
 * without waiting and refused, and no file is read beyond its limit (regular-file.ts).
 */
export const blockingFiles: FolderFiles = {
  list: async (folder) => readdirSync(folder),
  realpath: async (path) => realpathSync.native(path),
  stat: async (path) => statSync(path, { throwIfNoEntry: false }),
  open: async (path, flags) => openSync(path, flags),
  fstat: async (descriptor) => fstatSync(descriptor),
  read: async (descriptor, buffer, offset, length) => readSync(descriptor, buffer, offset, length, null),
  close: async (descriptor) => closeSync(descriptor),
};

const realpathAsync = promisify(realpath.native);
const openAsync = promisify(open);
const fstatAsync = promisify(fstat);
const closeAsync = promisify(close);

/** While serving: a slow volume (a network mount) must never stall the requests. */
export const nonBlockingFiles: FolderFiles = {
  list: (folder) => readdir(folder),
  realpath: (path) => realpathAsync(path),
  stat: (path) => stat(path).catch(() => undefined),
  open: (path, flags) => openAsync(path, flags),
  fstat: (descriptor) => fstatAsync(descriptor),
  read: (descriptor, buffer, offset, length) =>
    new Promise((resolve, reject) =>
      read(descriptor, buffer, offset, length, null, (error, count) => (error ? reject(error) : resolve(count))),
    ),
  close: (descriptor) => closeAsync(descriptor),
};
