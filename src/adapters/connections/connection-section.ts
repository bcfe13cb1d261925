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
  /**
   * The same, at once, for a section that may name no file (a catalog's entry: its secrets
   * come sealed through the API): each `<Key>File` is refused as outside the folders read.
   */
  readWithoutFiles(name: string, raw: unknown, origin: string): ConnectionDeclaration;
  /** The values of a section's secret keys (`ClientSecret` ..., as read from their files): what the log redacts. */
  secretsOf(section: object): string[];
  /** The connection keys the schema marks secret (`ClientSecret`, `ClientKey`, `SigningKey` ...). */
  readonly secretKeys: readonly string[];
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
  /**
   * The section typed, and its `<Key>File` keys of secrets in their order: each a file still
   * to be read, or set beside its secret (`twice`).
   */
  const typeSection = (name: string, raw: unknown, origin: string) => {
    const files: Array<{ key: string; secret: string; value: unknown; twice: boolean }> = [];
    const prefix = keyOf('Authentication', 'Connections', TYPED_AS);
    const rename = (problem: SettingsProblem): SettingsProblem =>
      problem.key.startsWith(prefix) ? { ...problem, key: origin + problem.key.slice(prefix.length) } : problem;
    if (!isPlainObject(raw)) {
      const problems = [error(origin, "must be a JSON object of the connection's keys")];
      return { declaration: { name, origin, section: {}, problems }, files };
    }
    const findings: KeyFindings = { unknown: [], duplicates: [] };
    const typed = canonicalize(raw, sectionSchema, ['Authentication', 'Connections', TYPED_AS], findings) as Record<
      string,
      unknown
    >;
    const problems: SettingsProblem[] = [
      ...findings.unknown.map(({ path }) => error(keyOf(...path), 'is not a known key of a connection')),
      ...findings.duplicates.map((path) => error(keyOf(...path), 'is set twice, spelled with different letter case')),
      ...validateTypes({ Authentication: { Connections: { [TYPED_AS]: typed } } }, schema.validate),
    ].map(rename);
    const section: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(typed)) {
      const secret = key.endsWith('File') ? key.slice(0, -'File'.length) : undefined;
      if (secret === undefined || !secretKeys.includes(secret)) {
        section[key] = value;
        continue;
      }
      files.push({ key, secret, value, twice: secret in typed });
    }
    return { declaration: { name, origin, section, problems }, files };
  };
  return {
    secretKeys,
    async read(name, raw, origin, fileKeys) {
      const { declaration, files } = typeSection(name, raw, origin);
      for (const { key, secret, value, twice } of files) {
        if (twice) refuseOrKeep(declaration, key, secret, 'twice');
        else
          refuseOrKeep(
            declaration,
            key,
            secret,
            typeof value === 'string' && value.trim() !== '' ? await fileKeys(value) : { refused: 'unreadable' },
          );
      }
      return declaration;
    },
    readWithoutFiles(name, raw, origin) {
      const { declaration, files } = typeSection(name, raw, origin);
      for (const { key, secret, value, twice } of files) {
        const named = typeof value === 'string' && value.trim() !== '';
        refuseOrKeep(declaration, key, secret, twice ? 'twice' : { refused: named ? 'outside' : 'unreadable' });
      }
      return declaration;
    },
    secretsOf(section) {
      const values = section as Readonly<Record<string, unknown>>;
      return secretKeys
        .flatMap((key) => (Array.isArray(values[key]) ? (values[key] as unknown[]) : [values[key]]))
        .filter((value): value is string => typeof value === 'string' && value !== '');
    },
  };
}

/**
 * A secret's file as read: its text in the secret's key (a Secret written with `echo` ends
 * with a line break), or why not; `twice` when the secret is set beside its file.
 */
function refuseOrKeep(
  declaration: { origin: string; section: Record<string, unknown>; problems: SettingsProblem[] },
  key: string,
  secret: string,
  read: FileText | 'twice',
): void {
  const at = `${declaration.origin}:${key}`;
  if (read === 'twice') declaration.problems.push(error(at, `and ${secret} are both set: give the secret one way`));
  else if ('refused' in read) declaration.problems.push(error(at, FILE_KEY_REFUSED[read.refused]));
  else declaration.section[secret] = read.text.replace(/\r?\n$/, '');
}

/**
 * The name a section is typed under, whatever the connection's: the types do not depend on
 * it (every name has the same schema), problems are renamed to the section's origin, and an
 * object keyed by each connection's own name would cost V8 a new hidden class for each one
 * (ten thousand at the start of an instance on a large catalog).
 */
const TYPED_AS = 'connection';

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

export interface SectionSchema {
  properties: Record<string, { secret?: boolean }>;
}

export function connectionSectionSchema(json: Record<string, unknown>): SectionSchema & Record<string, unknown> {
  const authentication = (json.properties as Record<string, Record<string, unknown>>).Authentication;
  const connections = (authentication?.properties as Record<string, Record<string, unknown>>).Connections;
  return connections?.additionalProperties as SectionSchema & Record<string, unknown>;
}
