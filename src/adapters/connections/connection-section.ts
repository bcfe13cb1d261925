import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { ConnectionDeclaration } from '../../domain/connections/connection.js';
import { error, keyOf, type SettingsProblem } from '../../domain/settings/problem.js';
import { canonicalize, isPlainObject, type KeyFindings } from '../config/canonicalize.js';
import type { SettingsSchema } from '../config/settings-schema.js';
import { validateTypes } from '../config/validate-types.js';

/** Reads one connection's section as a directory found it, into a declaration the connection rules take. */
export interface SectionReader {
  /**
   * @param raw the section as written (any letter case, values as JSON has them)
   * @param origin how problems name the section: its configuration key, or the file's path
   * @param baseDir where a `<Key>File` path is relative to
   */
  read(name: string, raw: unknown, origin: string, baseDir: string): ConnectionDeclaration;
}

/**
 * Types a connection's section with the configuration schema (keys in any letter case,
 * unknown keys refused, values typed as the configuration's are) and reads each secret
 * given as a file (`ClientSecretFile`: a mounted Secret) into its key. The values read are
 * handed to `onSecret` (the log's scrubber) before anything can log them.
 */
export function sectionReader(schema: SettingsSchema, onSecret: (values: readonly string[]) => void): SectionReader {
  const sectionSchema = connectionSectionSchema(schema.json);
  const secretKeys = Object.entries(sectionSchema.properties)
    .filter(([, kind]) => kind.secret === true)
    .map(([name]) => name);
  return {
    read(name, raw, origin, baseDir) {
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
      const found: string[] = [];
      for (const [key, value] of Object.entries(typed)) {
        const secret = key.endsWith('File') ? key.slice(0, -'File'.length) : undefined;
        if (secret === undefined || !secretKeys.includes(secret)) {
          section[key] = value;
          if (secretKeys.includes(key) && typeof value === 'string' && value !== '') found.push(value);
          continue;
        }
        if (secret in typed) {
          problems.push(error(`${origin}:${key}`, `and ${secret} are both set: give the secret one way`));
          continue;
        }
        const read = readSecretFile(value, baseDir);
        if (read === undefined) problems.push(error(`${origin}:${key}`, 'names a file that cannot be read'));
        else {
          section[secret] = read;
          found.push(read);
        }
      }
      onSecret(found);
      return { name, origin, section, problems };
    },
  };
}

/** The file's text without its final line break (a Secret written with `echo` has one). */
function readSecretFile(path: unknown, baseDir: string): string | undefined {
  if (typeof path !== 'string' || path.trim() === '') return undefined;
  try {
    return readFileSync(isAbsolute(path) ? path : resolve(baseDir, path), 'utf8').replace(/\r?\n$/, '');
  } catch {
    return undefined;
  }
}

interface SectionSchema {
  properties: Record<string, { secret?: boolean }>;
}

function connectionSectionSchema(json: Record<string, unknown>): SectionSchema & Record<string, unknown> {
  const authentication = (json.properties as Record<string, Record<string, unknown>>).Authentication;
  const connections = (authentication?.properties as Record<string, Record<string, unknown>>).Connections;
  return connections?.additionalProperties as SectionSchema & Record<string, unknown>;
}
