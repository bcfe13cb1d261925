/**
 * The `--database` choices: where the administration API of an `--authProvider connections`
 * project keeps the connections it writes. `postgres` turns the API on and leaves the
 * project ready for a PostgreSQL catalog; the database itself (its URL and password) and
 * the keys stay the deployment's to supply, so the project starts as generated and, until
 * a URL is set, the API writes into the connections folder.
 */

/** @type {Readonly<Record<string, { summary: string }>>} */
export const DATABASE_CHOICES = {
  none: { summary: 'no database, the administration API off (the default)' },
  postgres: {
    summary:
      'with --authProvider connections: the administration API on, keeping its connections in PostgreSQL once DATABASE_URL is set',
  },
};

export const DEFAULT_DATABASE = 'none';

/** The one --authProvider whose project has connections to keep. */
const NEEDS_CHOICE = 'connections';

/**
 * Why `--database` cannot be honoured: an unknown value, or a database for a project
 * without connections. Nothing else depends on the value.
 * @param {string | undefined} database as typed, undefined when not given
 * @param {string} choiceName the --authProvider value, lowercase
 * @returns {string[]}
 */
export function databaseProblems(database, choiceName) {
  const name = (database ?? DEFAULT_DATABASE).toLowerCase();
  if (!Object.hasOwn(DATABASE_CHOICES, name)) {
    return [`--database "${database}" is not a choice; the choices are ${Object.keys(DATABASE_CHOICES).join(', ')}`];
  }
  if (name !== DEFAULT_DATABASE && choiceName !== NEEDS_CHOICE) {
    return [
      `--database ${name} needs --authProvider ${NEEDS_CHOICE}: the database keeps the connections the administration API writes, and --authProvider ${choiceName} has none`,
    ];
  }
  return [];
}

/**
 * The values `--database postgres` writes under `ProjectTemplate` in config/appsettings.json,
 * adding the keys the template's file lacks. Migrate is Gatehouse's default too: written
 * out, it tells the reader where the switch is. No connection string: it holds a password.
 * @param {string} database
 * @returns {Array<{ path: string[], value: boolean }>}
 */
export function databaseSettings(database) {
  if (database !== 'postgres') return [];
  return [
    { path: ['Database', 'Migrate'], value: true },
    { path: ['Administration', 'Enabled'], value: true },
  ];
}

/**
 * The new project's `.env.example` for `--database postgres`: the template's, with the
 * database's and the keys' lines after it, commented out like every line of it.
 * @param {string} text the template's .env.example
 */
export function rewriteEnvExample(text) {
  return `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${ENV_EXAMPLE_LINES.join('\n')}\n`;
}

const ENV_EXAMPLE_LINES = [
  '# The connection catalog in PostgreSQL (README.md, "Connections in PostgreSQL"); without it the',
  '# administration API writes into connections/. The URL and the encryption key are secrets:',
  '# DATABASE_URL=postgresql://gatehouse@localhost/gatehouse',
  '# ProjectTemplate__Administration__EncryptionKeys__0=<what npm run connections:new-key prints>',
  '# Only the hash of an API key, never the key (npm run admin:new-api-key prints both):',
  '# ProjectTemplate__Administration__ApiKeys__0=<the hash npm run admin:new-api-key prints>',
];

/**
 * The README's part on the catalog, after the connections posture.
 * @param {string} directory the connections folder
 * @returns {string[]}
 */
export function postgresPosture(directory) {
  return [
    '',
    '### Connections in PostgreSQL',
    '',
    'This project was generated with `--database postgres`: `config/appsettings.json` turns the',
    'administration API on (`ProjectTemplate:Administration:Enabled`), so connections are added, changed',
    'and removed while the application runs (`/api/admin/connections`, described at',
    '`/api/admin/openapi.json`). To keep them in PostgreSQL:',
    '',
    '1. Set `DATABASE_URL` (or `ProjectTemplate__Database__ConnectionString`) to a `postgresql://` URL. It',
    '   holds a password: give it in the environment or your secret store, never in the repository.',
    "2. The catalog's migrations run at start, under a lock, so instances may start together",
    '   (`ProjectTemplate:Database:Migrate` is `true`). To run them in your pipeline instead, set',
    '   `ProjectTemplate__Database__Migrate=false` and run `npm run db:migrate` before the new version starts.',
    '3. Generate an encryption key with `npm run connections:new-key` and give it as',
    '   `ProjectTemplate__Administration__EncryptionKeys__0`, a secret like the URL: it seals the secrets the',
    '   API stores (a client secret).',
    '4. Generate an API key with `npm run admin:new-api-key`. The key goes to the job that calls the API',
    '   (`Authorization: Bearer <key>`); only the hash it prints goes into the configuration, in',
    '   `ProjectTemplate:Administration:ApiKeys`. Signed-in staff holding the permission `connections.manage`',
    '   (`ProjectTemplate:Administration:ManagePermission`) may call the API too.',
    '',
    `Without a database the API writes its connections as files into \`${directory}/\`, which suits one`,
    'instance only: two instances writing one folder can both pass its version check (a folder has no lock',
    `across hosts). With a database, the files written by hand in \`${directory}/\` keep working beside the`,
    'catalog (the API neither changes nor removes them). `.env.example` lists these settings;',
    '`docs/connections.md` ("The administration API", "Running on PostgreSQL") has the rest.',
  ];
}

/**
 * What the generator prints for `--database postgres`, after the connections' next steps.
 * @param {string} directory the connections folder
 * @returns {string[]}
 */
export function postgresNextSteps(directory) {
  return [
    `The administration API is on (--database postgres); it writes into ${directory}/ until DATABASE_URL names a`,
    'PostgreSQL database. README.md, "Connections in PostgreSQL": migrations, an encryption key and an API key.',
  ];
}
