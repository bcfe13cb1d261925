import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { UnknownKey } from '../../domain/settings/check-settings.js';
import { defaultSettings } from '../../domain/settings/default-settings.js';
import { error, keyOf, type SettingsProblem } from '../../domain/settings/problem.js';
import type { Environment, ProjectTemplateSettings } from '../../domain/settings/settings.js';
import { canonicalize, deepMerge, isPlainObject, type KeyFindings, type Tree } from './canonicalize.js';
import { parseDotenv, shellDroppedNames, treeFromEnvironment } from './environment-source.js';
import { withLabelledRows } from './labelled-rows.js';
import type { SettingsSchema } from './settings-schema.js';
import { validateTypes } from './validate-types.js';

export interface LoadedConfiguration {
  settings: ProjectTemplateSettings;
  environment: Environment;
  listen: { port: number; host: string };
  unknownKeys: UnknownKey[];
  /** Problems found while reading and typing the sources (files, types, PORT). */
  problems: SettingsProblem[];
  /** The configured values of every secret key, so that the log can redact them wherever they appear. */
  secretValues: string[];
}

/**
 * Reads the configuration, later sources winning: built-in defaults < `DATABASE_URL` <
 * config/appsettings.json < config/appsettings.<NODE_ENV>.json < .env < environment.
 * This is the only module that reads process.env (through the caller) and files.
 */
export function loadConfiguration(
  rootDir: string,
  processEnv: Record<string, string | undefined>,
  schema: SettingsSchema,
): LoadedConfiguration {
  const problems: SettingsProblem[] = [];
  const dotenvPath = join(rootDir, '.env');
  const dotenv = existsSync(dotenvPath) ? parseDotenv(readFileSync(dotenvPath, 'utf8')) : {};
  const variables = { ...dotenv, ...processEnv };
  const nodeEnv = variables.NODE_ENV ?? 'development';
  const environment = environmentOf(nodeEnv);

  const findings: KeyFindings = { unknown: [], duplicates: [] };
  const sources: Tree[] = [
    defaultSettings(schema.providers) as unknown as Tree,
    // The name hosting platforms set (Heroku, Render, Fly): below every ProjectTemplate key,
    // the files' included, so a Database:ConnectionString set anywhere wins.
    databaseUrl(variables.DATABASE_URL),
    readJsonSection(join(rootDir, 'config', 'appsettings.json'), problems),
    readJsonSection(join(rootDir, 'config', `appsettings.${nodeEnv}.json`), problems),
    treeFromEnvironment(dotenv),
    treeFromEnvironment(processEnv),
  ];
  const merged = sources
    .map((source) => withLabelledRows(canonicalize(source, schema.json, [], findings) as Tree, problems))
    .reduce((result, source) => deepMerge(result, source), {});
  for (const path of findings.duplicates) {
    problems.push(
      error(
        keyOf(...path),
        'is set more than once in one source, spelled with different letter case: keep one spelling (which one wins would depend on the order the values are read in)',
      ),
    );
  }
  problems.push(...validateTypes(merged, schema.validate));
  problems.push(...shellDroppedNames(processEnv));

  const settings = merged as unknown as ProjectTemplateSettings;
  return {
    settings,
    environment,
    listen: readListen(variables, problems),
    unknownKeys: findings.unknown,
    problems,
    secretValues: collectSecretValues(merged, schema.secretKeyPaths),
  };
}

function databaseUrl(value: string | undefined): Tree {
  return value === undefined || value.trim() === '' ? {} : { Database: { ConnectionString: value } };
}

/** NODE_ENV unset or `development` is development, `test` is test; anything else gets the production posture. */
export function environmentOf(nodeEnv: string): Environment {
  if (nodeEnv === 'development' || nodeEnv === 'test') return nodeEnv;
  return 'production';
}

function readJsonSection(path: string, problems: SettingsProblem[]): Tree {
  if (!existsSync(path)) return {};
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    // The parser's message quotes the file's text, which may hold secrets: name the file only.
    problems.push(error(path, 'is not valid JSON'));
    return {};
  }
  if (!isPlainObject(document)) return {};
  const section = Object.entries(document).find(([key]) => key.toLowerCase() === 'projecttemplate')?.[1];
  return isPlainObject(section) ? section : {};
}

function readListen(variables: Record<string, string | undefined>, problems: SettingsProblem[]) {
  const rawPort = variables.PORT ?? '3000';
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port > 65535) problems.push(error('PORT', 'must be a port number from 0 to 65535'));
  return { port: Number.isInteger(port) ? port : 3000, host: variables.HOST ?? '127.0.0.1' };
}

function collectSecretValues(tree: Tree, secretKeyPaths: readonly string[][]): string[] {
  const values: string[] = [];
  for (const path of secretKeyPaths) {
    let nodes: unknown[] = [tree];
    for (const segment of path) {
      nodes = nodes.flatMap((node) =>
        !isPlainObject(node) ? [] : segment === '*' ? Object.values(node) : [node[segment]],
      );
    }
    for (const node of nodes) {
      for (const value of Array.isArray(node) ? node : [node]) {
        if (typeof value === 'string' && value !== '') values.push(value, ...urlPassword(value));
      }
    }
  }
  return values;
}

/**
 * The password of a secret URL (`redis://user:password@host`), as written and decoded: a
 * client that parses the URL holds the password apart from it (ioredis keeps it in its
 * options), where scrubbing the whole URL would not find it.
 */
function urlPassword(value: string): string[] {
  if (!URL.canParse(value)) return [];
  const { password } = new URL(value);
  if (password === '') return [];
  try {
    return [password, decodeURIComponent(password)];
  } catch {
    return [password];
  }
}
