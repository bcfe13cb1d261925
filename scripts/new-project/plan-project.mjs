import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { AUTH_CHOICES, DEFAULT_CHOICE } from './auth-choices.mjs';
import { connectionFiles } from './connections-choice.mjs';
import { DEFAULT_DATABASE, databaseProblems, rewriteEnvExample } from './database-choice.mjs';
import { packageNameFromDirectory, packageNameProblems } from './package-name.mjs';
import { providerStarter, rewriteAppsettings } from './rewrite-appsettings.mjs';
import { rewriteLockfile, rewritePackage, templateIdentity } from './rewrite-package.mjs';
import { rewriteReadme } from './rewrite-readme.mjs';
import { listTemplateFiles, readTemplateText } from './template-files.mjs';

/**
 * @typedef {object} ProjectRequest
 * @property {string} templateRoot the template: this repository, or an installed tarball of it
 * @property {string} target absolute path of the new project's directory
 * @property {string} [name] the package name asked for
 * @property {string} [authProvider] the choice asked for
 * @property {string} [database] the --database asked for
 */

/**
 * @typedef {object} ProjectPlan
 * @property {string} target
 * @property {string} name
 * @property {boolean} nameFromDirectory
 * @property {string} choiceName
 * @property {import('./auth-choices.mjs').AuthChoice} choice
 * @property {string} database the --database value: `none` or `postgres`
 * @property {string} templateVersion
 * @property {Array<{ path: string, content: Buffer | string, mode: number }>} files
 */

/**
 * Checks everything and prepares every file in memory, writing nothing: either the plan,
 * or every reason to refuse at once.
 * @param {ProjectRequest} request
 * @returns {{ plan: ProjectPlan, problems?: undefined } | { problems: string[], plan?: undefined }}
 */
export function planProject(request) {
  const choiceName = (request.authProvider ?? DEFAULT_CHOICE).toLowerCase();
  // Own keys only: `constructor` is no choice, whatever every object inherits.
  const choice = Object.hasOwn(AUTH_CHOICES, choiceName) ? AUTH_CHOICES[choiceName] : undefined;
  const problems = [
    ...(choice
      ? []
      : [
          `--authProvider "${request.authProvider}" is not a choice; the choices are ${Object.keys(AUTH_CHOICES).join(', ')}`,
        ]),
    ...databaseProblems(request.database, choiceName),
    ...nameProblems(request.name),
    ...targetProblems(request.target, request.templateRoot),
  ];
  /** @type {ReturnType<typeof listTemplateFiles>} */
  let templateFiles = [];
  try {
    templateFiles = listTemplateFiles(request.templateRoot);
  } catch (error) {
    problems.push(`the template cannot be used: ${messageOf(error)}`);
  }
  if (problems.length > 0 || !choice) return { problems };

  const name = request.name ?? packageNameFromDirectory(basename(request.target));
  const database = (request.database ?? DEFAULT_DATABASE).toLowerCase();
  try {
    const templateVersion = templateIdentity(readTemplateText(templateFiles, 'package.json')).version;
    const rewritten = rewriteTemplateFiles(templateFiles, { name, templateVersion, choiceName, choice, database });
    const files = [
      ...templateFiles.map(({ path, source, mode }) => ({
        path,
        content: rewritten.get(path) ?? readFileSync(source),
        mode,
      })),
      ...connectionFiles(choice).map(({ path, text }) => ({ path, content: text, mode: 0o644 })),
    ];
    return {
      plan: {
        target: request.target,
        name,
        nameFromDirectory: request.name === undefined,
        choiceName,
        choice,
        database,
        templateVersion,
        files,
      },
    };
  } catch (error) {
    // A template file that changed shape (a README heading renamed ...): say so, write nothing.
    return { problems: [`the template cannot be used: ${messageOf(error)}`] };
  }
}

/**
 * The files template-manifest.mjs lists as rewritten, by path.
 * @param {ReturnType<typeof listTemplateFiles>} templateFiles
 * @param {{ name: string, templateVersion: string, choiceName: string, choice: import('./auth-choices.mjs').AuthChoice, database: string }} facts
 * @returns {Map<string, string>}
 */
function rewriteTemplateFiles(templateFiles, facts) {
  const text = (/** @type {string} */ path) => readTemplateText(templateFiles, path);
  const { name, templateVersion, choiceName, choice, database } = facts;
  const appsettings = text('config/appsettings.json');
  const withDatabase = database !== DEFAULT_DATABASE;
  // .env.example is not REQUIRED: a template without one gets none.
  const envExample = withDatabase && templateFiles.some((file) => file.path === '.env.example');
  return new Map([
    [
      'package.json',
      rewritePackage(text('package.json'), {
        name,
        description: `Generated from Gatehouse ${templateVersion} with --authProvider ${choiceName}${withDatabase ? ` --database ${database}` : ''}.`,
      }),
    ],
    ['package-lock.json', rewriteLockfile(text('package-lock.json'), { name })],
    ['config/appsettings.json', rewriteAppsettings(appsettings, choice, database)],
    ...(envExample
      ? /** @type {Array<[string, string]>} */ ([['.env.example', rewriteEnvExample(text('.env.example'))]])
      : []),
    [
      'README.md',
      rewriteReadme(text('README.md'), {
        ...facts,
        provider: choice.provider ? providerStarter(appsettings, choice.provider) : undefined,
      }),
    ],
  ]);
}

/** @param {string | undefined} name the --name asked for, if any */
function nameProblems(name) {
  const problems = name === undefined ? [] : packageNameProblems(name);
  return problems.length === 0 ? [] : [`--name "${name}" would be refused by npm: ${problems.join('; ')}`];
}

/** @param {string} target @param {string} templateRoot @returns {string[]} */
function targetProblems(target, templateRoot) {
  const fromTemplate = relative(templateRoot, target);
  if (fromTemplate === '' || (!fromTemplate.startsWith('..') && !isAbsolute(fromTemplate))) {
    return [
      `${target} is inside the template (${templateRoot}); choose a directory outside it, such as ${join(dirname(templateRoot), basename(target))}`,
    ];
  }
  let existing = target;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  if (!statSync(existing).isDirectory()) {
    return existing === target
      ? [`${target} exists and is not a directory`]
      : [`${target} cannot be created: ${existing} is not a directory`];
  }
  if (existing !== target) return [];
  const entries = readdirSync(target);
  return entries.length === 0
    ? []
    : [`${target} exists and is not empty (${entries.length} entries); choose a new or an empty directory`];
}

/** @param {unknown} error */
function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}
