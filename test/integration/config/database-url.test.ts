import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfiguration } from '../../../src/adapters/config/load-configuration.js';
import { settingsSchema, type SettingsSchema } from '../../../src/adapters/config/settings-schema.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';

const PLATFORM_URL = 'postgres://platform:SENTINEL-platform-password@db.platform.example:5432/app';
const OPERATOR_URL = 'postgresql://gatehouse:SENTINEL-operator-password@db.internal:5432/gatehouse';
const FILE_URL = 'postgresql://gatehouse@db.from-file.example/gatehouse';
const CONNECTION_STRING = 'ProjectTemplate__Database__ConnectionString';

/**
 * The environment as a container's process receives it: through /bin/sh (dash on Debian and
 * the `node` images drops names it cannot hold), so a name that would not reach the app
 * does not reach the test either.
 */
function throughShell(variables: Record<string, string>): Record<string, string> {
  const shown = spawnSync('/bin/sh', ['-c', 'env'], { env: { PATH: process.env.PATH ?? '', ...variables } });
  const env: Record<string, string> = {};
  for (const line of shown.stdout.toString().split('\n')) {
    const separator = line.indexOf('=');
    if (separator > 0 && line.slice(0, separator) in variables)
      env[line.slice(0, separator)] = line.slice(separator + 1);
  }
  return env;
}

describe("the database's connection string from the environment (DATABASE_URL)", () => {
  let root: string;
  let schema: SettingsSchema;
  before(async () => {
    schema = await settingsSchema(builtInProviders);
  });
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'gatehouse-database-url-'));
    mkdirSync(join(root, 'config'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const load = (env: Record<string, string>) => loadConfiguration(root, throughShell(env), schema);

  it('reads DATABASE_URL, as hosting platforms set it, into Database:ConnectionString', () => {
    const { settings, problems } = load({ DATABASE_URL: PLATFORM_URL });
    expect(problems).to.deep.equal([]);
    expect(settings.Database.ConnectionString).to.equal(PLATFORM_URL);
  });

  it('lets ProjectTemplate__Database__ConnectionString win over DATABASE_URL', () => {
    const { settings } = load({ DATABASE_URL: PLATFORM_URL, [CONNECTION_STRING]: OPERATOR_URL });
    expect(settings.Database.ConnectionString).to.equal(OPERATOR_URL);
  });

  it('lets a connection string of the configuration files win over DATABASE_URL (read only when it is not set)', () => {
    writeFileSync(
      join(root, 'config', 'appsettings.json'),
      JSON.stringify({ ProjectTemplate: { Database: { ConnectionString: FILE_URL } } }),
    );
    expect(load({ DATABASE_URL: PLATFORM_URL }).settings.Database.ConnectionString).to.equal(FILE_URL);
  });

  it('reads DATABASE_URL from .env too, below a ProjectTemplate key of the environment', () => {
    writeFileSync(join(root, '.env'), `DATABASE_URL=${PLATFORM_URL}\n`);
    expect(load({}).settings.Database.ConnectionString).to.equal(PLATFORM_URL);
    expect(load({ [CONNECTION_STRING]: OPERATOR_URL }).settings.Database.ConnectionString).to.equal(OPERATOR_URL);
  });

  it('ignores an empty DATABASE_URL: no database', () => {
    expect(load({ DATABASE_URL: '  ' }).settings.Database.ConnectionString).to.equal('');
  });

  it('holds the URL and its password among the secret values the log redacts', () => {
    const { secretValues } = load({ DATABASE_URL: PLATFORM_URL });
    expect(secretValues).to.include(PLATFORM_URL).and.include('SENTINEL-platform-password');
  });
});
