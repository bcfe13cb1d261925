import type { ConnectionDeclaration } from '../../domain/connections/connection.js';
import { error, keyOf, type SettingsProblem } from '../../domain/settings/problem.js';
import { canonicalize, isPlainObject, type KeyFindings } from '../config/canonicalize.js';
import type { SettingsSchema } from '../config/settings-schema.js';
import { validateTypes } from '../config/validate-types.js';
import { SECRET_FILE_MAX_BYTES, type FileRefusal, type FileText } from './regular-file.js';

/** Reads the file a `<Key>File` value names, with the rules of where the section came from. */
export type FileKeys = (value: string) => Promise<FileText>;

/** Reads one connection's section as a directory found it, into a declaration the connection rules take. */
export interface SectionReader {
  /**
   * @param raw the section as written (any letter case, values as JSON has them)
   * @param origin how problems name the section: its configuration key, or the file's path
   * @param fileKeys reads what a `<Key>File` names: where it is relative to, and what it may name
   */
  read(name: string, raw: unknown, origin: string, fileKeys: FileKeys): Promise<ConnectionDeclaration>;
  /** The values of a section's secret keys (`ClientSecret` ..., as read from their files): what the log redacts. */
  secretsOf(section: object): string[];
}

/**
 * Types a connection's section with the configuration schema (keys in any letter case,
 * unknown keys refused, values typed as the configuration's are) and reads each secret
 * given as a file (`ClientSecretFile`: a mounted Secret) into its key. Its secrets are
 * handed to the log by the composition root once the connection is in force (`secretsOf`),
 * never those of a declaration that was refused.
 */
export function sectionReader(schema: SettingsSchema): SectionReader {
  const sectionSchema = connectionSectionSchema(schema.json);
  const secretKeys = Object.entries(sectionSchema.properties)
    .filter(([, kind]) => kind.secret === true)
    .map(([name]) => name);
  return {
    async read(name, raw, origin, fileKeys) {
      const prefix = keyOf('Authentication', 'Connections', name);
      const rename = (problem: SettingsProblem): SettingsProblem =>
        problem.key.startsWith(prefix) ? { ...problem, key: origin + problem.key.slice(prefix.length) } : problem;
      if (!isPlainObject(raw))
        return {
          name,
          origin,
          section: {},
          problems: [error(origin, "must be a JSON object of the connection's keys")],
        };
      const findings: KeyFindings = { unknown: [], duplicates: [] };
      const typed = canonicalize(raw, sectionSchema, ['Authentication', 'Connections', name], findings) as Record<
        string,
        unknown
      >;
      const problems: SettingsProblem[] = [
        ...findings.unknown.map(({ path }) => error(keyOf(...path), 'is not a known key of a connection')),
        ...findings.duplicates.map((path) => error(keyOf(...path), 'is set twice, spelled with different letter case')),
        ...validateTypes({ Authentication: { Connections: { [name]: typed } } }, schema.validate),
      ].map(rename);
      const section: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(typed)) {
        const secret = key.endsWith('File') ? key.slice(0, -'File'.length) : undefined;
        if (secret === undefined || !secretKeys.includes(secret)) {
          section[key] = value;
          continue;
        }
        if (secret in typed) {
          problems.push(error(`${origin}:${key}`, `and ${secret} are both set: give the secret one way`));
          continue;
        }
        const read: FileText =
          typeof value === 'string' && value.trim() !== '' ? await fileKeys(value) : { refused: 'unreadable' };
        if ('refused' in read) problems.push(error(`${origin}:${key}`, FILE_KEY_REFUSED[read.refused]));
        // A Secret written with `echo` ends with a line break.
        else section[secret] = read.text.replace(/\r?\n$/, '');
      }
      return { name, origin, section, problems };
    },
    secretsOf(section) {
      const values: Record<string, unknown> = { ...section };
      return secretKeys
        .flatMap((key) => (Array.isArray(values[key]) ? (values[key] as unknown[]) : [values[key]]))
        .filter((value): value is string => typeof value === 'string' && value !== '');
    },
  };
}

/** Why a `<Key>File` was not read, in words: the file and the key are the problem's key, never a byte of the file. */
const FILE_KEY_REFUSED: Readonly<Record<FileRefusal, string>> = {
  unreadable: 'names a file that cannot be read',
  'not-regular': 'names something that is not a regular file (a pipe, a device, a folder): only regular files are read',
  'too-large': `names a file larger than ${SECRET_FILE_MAX_BYTES / 1024} KiB, the most a secret file may hold`,
  outside:
    'names a file outside the connections folder and Authentication:ConnectionSecretsDirectory (links followed): a connection file reads secrets from those folders only',
  foreign:
    'names a file that is not this connection\'s: a part of its path must be the connection\'s name, or start with it and "." or "_"',
};

interface SectionSchema {
  properties: Record<string, { secret?: boolean }>;
}

function connectionSectionSchema(json: Record<string, unknown>): SectionSchema & Record<string, unknown> {
  const authentication = (json.properties as Record<string, Record<string, unknown>>).Authentication;
  const connections = (authentication?.properties as Record<string, Record<string, unknown>>).Connections;
  return connections?.additionalProperties as SectionSchema & Record<string, unknown>;
}
