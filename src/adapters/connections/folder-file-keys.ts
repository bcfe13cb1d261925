import { relative, resolve, sep } from 'node:path';
import {
  isBelow,
  isInsideAny,
  readRegularFile,
  SECRET_FILE_MAX_BYTES,
  type FileCalls,
  type FileText,
} from './regular-file.js';

/**
 * Where a `<Key>File` of a connection file may point. A connection file is one customer's
 * (a provisioning job or a setup portal writes what the customer gave), so what it names
 * is hostile to every other customer: a path to another connection's secret, to a private
 * key elsewhere, or to `/proc/self/environ` would be read and sent, as a client secret, to
 * that file's own identity provider. So a file key names only
 * - a file inside the connections folder or `Authentication:ConnectionSecretsDirectory`,
 *   once every link is followed (a link in either pointing out is refused);
 * - a file of its own connection: a part of the path as written, below the folder it is in,
 *   is the connection's name, or starts with it followed by `.` or `_` (`globex.client-secret`,
 *   `globex/client-key.pem`, `secrets/globex`; names hold neither, so `acme` cannot claim
 *   `acme-corp`'s files); the folders' links are the operator's, and are not looked at for this.
 * The configuration's own connections keep any path: the operator wrote them.
 */
export class FolderFileKeys {
  /** @param folders the connections folder, then the secrets folder if one is configured */
  constructor(private readonly folders: readonly string[]) {}

  /** The text of the file `value` names for the connection `connection`, or why it is refused. */
  async read(calls: FileCalls, connection: string, value: string): Promise<FileText> {
    const path = resolve(this.folders[0] ?? '', value);
    const real = await calls.realpath(path).catch(() => undefined);
    if (real === undefined) return { refused: 'unreadable' };
    if (!(await isInsideAny(calls, real, this.folders))) return { refused: 'outside' };
    if (!this.folders.some((folder) => isBelow(folder, path) && namesConnection(relative(folder, path), connection)))
      return { refused: 'foreign' };
    return readRegularFile(calls, real, { maxBytes: SECRET_FILE_MAX_BYTES });
  }
}

/** Whether a part of `inner` (a relative path) is `connection`, or starts with it and `.` or `_` (any letter case). */
export function namesConnection(inner: string, connection: string): boolean {
  const name = connection.toLowerCase();
  return inner
    .toLowerCase()
    .split(sep)
    .some((part) => part === name || part.startsWith(`${name}.`) || part.startsWith(`${name}_`));
}
