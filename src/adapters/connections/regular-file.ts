import { constants, type Stats } from 'node:fs';
import { relative, isAbsolute, sep } from 'node:path';

/** The most a connection file (`<Name>.json`) may hold: a SAML connection with its certificates is a few KiB. */
export const CONNECTION_FILE_MAX_BYTES = 1024 * 1024;
/** The most a file a `<Key>File` names may hold: a 4096-bit RSA key in PEM is about 3.3 KiB. */
export const SECRET_FILE_MAX_BYTES = 64 * 1024;

/** Why a file was not read; never anything of its content. */
export type FileRefusal = 'unreadable' | 'not-regular' | 'too-large' | 'outside' | 'foreign';

/** A file's text, or why it was not read. */
export type FileText = { text: string } | { refused: FileRefusal };

/** The file-system calls reading a file takes, blocking (the start) or not (while serving): folder-files.ts. */
export interface FileCalls {
  /** The path with every link followed (realpath(3)). */
  realpath(path: string): Promise<string>;
  /** Undefined when the file is not there (any more). */
  stat(path: string): Promise<Stats | undefined>;
  open(path: string, flags: number): Promise<number>;
  fstat(descriptor: number): Promise<Stats>;
  /** Reads into `buffer` from `offset`, at the file's current position; 0 at its end. */
  read(descriptor: number, buffer: Buffer, offset: number, length: number): Promise<number>;
  close(descriptor: number): Promise<void>;
}

/**
 * Opening never waits: a FIFO opened for reading without O_NONBLOCK waits for a writer,
 * holding the event loop (a blocking call) or a thread of libuv's pool (four in all) for
 * as long as nobody writes. O_NOFOLLOW: the path opened is the one whose place was checked.
 */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/**
 * The text of a regular file of at most `maxBytes`, and, with `within`, only when the file
 * lies in one of those folders once every link is followed (a link in a folder pointing out
 * of it is refused). Anything else (a pipe, a device, a folder, a file too large or gone)
 * is refused with the reason, without waiting on it and without reading more than
 * `maxBytes` + 1 bytes of it, whatever size it claims (`/proc` files claim 0).
 */
export async function readRegularFile(
  calls: FileCalls,
  path: string,
  limits: { maxBytes: number; within?: readonly string[] },
): Promise<FileText> {
  const real = await calls.realpath(path).catch(() => undefined);
  if (real === undefined) return { refused: 'unreadable' };
  if (limits.within && !(await isInsideAny(calls, real, limits.within))) return { refused: 'outside' };
  // Looked at before it is opened: opening a device can do something by itself.
  const refusal = refusalOf(await calls.stat(real), limits.maxBytes);
  if (refusal) return { refused: refusal };
  const descriptor = await calls.open(real, OPEN_FLAGS).catch(() => undefined);
  if (descriptor === undefined) return { refused: 'unreadable' };
  try {
    // And again once open: what was looked at may have been replaced in between.
    const opened = await calls.fstat(descriptor);
    const openedRefusal = refusalOf(opened, limits.maxBytes);
    if (openedRefusal) return { refused: openedRefusal };
    const bytes = await readAtMost(calls, descriptor, limits.maxBytes + 1, opened.size);
    if (bytes.length > limits.maxBytes) return { refused: 'too-large' };
    return { text: bytes.toString('utf8') };
  } catch {
    return { refused: 'unreadable' };
  } finally {
    await calls.close(descriptor).catch(() => undefined);
  }
}

/** Whether `real` (a real path) lies inside one of `folders`, each taken with its own links followed. */
export async function isInsideAny(calls: FileCalls, real: string, folders: readonly string[]): Promise<boolean> {
  for (const folder of folders) {
    const root = await calls.realpath(folder).catch(() => undefined);
    if (root !== undefined && isBelow(root, real)) return true;
  }
  return false;
}

/** Whether `path` lies strictly below `folder` (both absolute, both spelt the same way). */
export function isBelow(folder: string, path: string): boolean {
  const inner = relative(folder, path);
  return inner !== '' && inner !== '..' && !inner.startsWith(`..${sep}`) && !isAbsolute(inner);
}

function refusalOf(stats: Stats | undefined, maxBytes: number): FileRefusal | undefined {
  if (stats === undefined) return 'unreadable';
  if (!stats.isFile()) return 'not-regular';
  if (stats.size > maxBytes) return 'too-large';
  return undefined;
}

/** Up to `limit` bytes from the descriptor, the buffer grown as they come (a file's stated size may be 0 or wrong). */
async function readAtMost(calls: FileCalls, descriptor: number, limit: number, statedSize: number): Promise<Buffer> {
  let buffer = Buffer.alloc(Math.min(limit, Math.max(statedSize + 1, 4096)));
  let filled = 0;
  for (;;) {
    if (filled === buffer.length) {
      if (buffer.length >= limit) return buffer;
      const larger = Buffer.alloc(Math.min(limit, buffer.length * 2));
      buffer.copy(larger, 0, 0, filled);
      buffer = larger;
    }
    const count = await calls.read(descriptor, buffer, filled, buffer.length - filled);
    if (count === 0) return buffer.subarray(0, filled);
    filled += count;
  }
}
