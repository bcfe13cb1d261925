import { sectionsOf } from '../../support/provider-sections.js';
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfiguration } from '../../../src/adapters/config/load-configuration.js';
import { settingsSchema, type SettingsSchema } from '../../../src/adapters/config/settings-schema.js';
import { findProjectRoot } from '../../../src/bootstrap/project-root.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';

const projectRoot = findProjectRoot();

describe('loadConfiguration', () => {
  let root: string;
  let schema: SettingsSchema;
  before(async () => {
    schema = await settingsSchema(builtInProviders);
  });
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'gatehouse-config-'));
    mkdirSync(join(root, 'config'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const writeJson = (name: string, value: unknown) => writeFileSync(join(root, 'config', name), JSON.stringify(value));
  const oidcUnder = (value: object) => ({
    ProjectTemplate: { Authentication: { Providers: { OpenIdConnect: value } } },
  });

  it('starts from the built-in defaults with no configuration at all', () => {
    const { settings, problems, environment, listen } = loadConfiguration(root, {}, schema);
    expect(problems).to.deep.equal([]);
    expect(environment).to.equal('development');
    expect(listen).to.deep.equal({ port: 3000, host: '127.0.0.1' });
    expect(settings.Authentication.Enabled).to.equal(true);
    expect(sectionsOf(settings).OpenIdConnect.Scopes).to.deep.equal(['openid', 'profile', 'email']);
  });

  it('lets later sources win: defaults < appsettings.json < appsettings.<env>.json < .env < environment', () => {
    writeJson(
      'appsettings.json',
      oidcUnder({ ClientId: 'from-json', DisplayName: 'json', Scheme: 'json', CallbackPath: '/json' }),
    );
    writeJson(
      'appsettings.staging.json',
      oidcUnder({ DisplayName: 'env-json', Scheme: 'env-json', CallbackPath: '/env-json' }),
    );
    writeFileSync(
      join(root, '.env'),
      'ProjectTemplate__Authentication__Providers__OpenIdConnect__Scheme=dotenv\nProjectTemplate__Authentication__Providers__OpenIdConnect__CallbackPath="/dotenv"\n',
    );
    const { settings } = loadConfiguration(
      root,
      {
        NODE_ENV: 'staging',
        ProjectTemplate__Authentication__Providers__OpenIdConnect__CallbackPath: '/process',
      },
      schema,
    );
    const oidc = sectionsOf(settings).OpenIdConnect;
    expect([oidc.ClientId, oidc.DisplayName, oidc.Scheme, oidc.CallbackPath]).to.deep.equal([
      'from-json',
      'env-json',
      'dotenv',
      '/process',
    ]);
  });

  it('matches keys case-insensitively and coerces strings from the environment', () => {
    const { settings, problems } = loadConfiguration(
      root,
      {
        PROJECTTEMPLATE__authentication__providers__openidconnect__enabled: 'true',
        ProjectTemplate__Session__IdleTimeout: '600',
        ProjectTemplate__Directory__EmbeddedSearchMsPerMinute: '1200',
        ProjectTemplate__Authentication__Providers__OpenIdConnect__Scopes__0: 'openid',
        ProjectTemplate__Authentication__Providers__OpenIdConnect__Scopes__1: 'offline_access',
      },
      schema,
    );
    expect(problems).to.deep.equal([]);
    expect(sectionsOf(settings).OpenIdConnect.Enabled).to.equal(true);
    expect(settings.Session.IdleTimeout).to.equal(600);
    expect(settings.Directory.EmbeddedSearchMsPerMinute).to.equal(1_200);
    expect(sectionsOf(settings).OpenIdConnect.Scopes).to.deep.equal(['openid', 'offline_access']);
  });

  it('names the key and the expected type of a wrong value, never the value', () => {
    const { problems } = loadConfiguration(
      root,
      {
        ProjectTemplate__Authentication__Enabled: 'yes-SENTINEL',
        ProjectTemplate__Authorization__AdministratorRoles: 'Admin',
        ProjectTemplate__Session__Store: 'Disk',
      },
      schema,
    );
    expect(problems.map((p) => `${p.key} ${p.message}`)).to.have.members([
      'ProjectTemplate:Authentication:Enabled must be a boolean',
      'ProjectTemplate:Authorization:AdministratorRoles must be an array (in environment variables, one variable per item: ..__0, ..__1)',
      'ProjectTemplate:Session:Store must be one of Memory, Redis',
    ]);
    expect(JSON.stringify(problems)).not.to.contain('SENTINEL');
  });

  it('refuses one key set twice in one source under spellings that differ in letter case, naming it', () => {
    const { problems, settings } = loadConfiguration(
      root,
      {
        ProjectTemplate__Authorization__RequireAuthenticatedUserByDefault: 'true',
        PROJECTTEMPLATE__AUTHORIZATION__REQUIREAUTHENTICATEDUSERBYDEFAULT: 'false',
        projecttemplate__authentication__providers__openidconnect__scopes__0: 'openid',
        ProjectTemplate__Authentication__Providers__OpenIdConnect__Scopes__0: 'openid',
      },
      schema,
    );
    expect(problems.map((p) => [p.severity, p.key])).to.have.deep.members([
      ['error', 'ProjectTemplate:Authorization:RequireAuthenticatedUserByDefault'],
      ['error', 'ProjectTemplate:Authentication:Providers:OpenIdConnect:Scopes'],
    ]);
    expect(problems[0]?.message).to.contain('more than once');
    expect(settings.Authorization.AdministratorRoles, 'the rest still loads').to.deep.equal(['Administrator']);
  });

  it('merges two spellings of one section when they set different keys', () => {
    const { problems, settings } = loadConfiguration(
      root,
      {
        ProjectTemplate__Authorization__RequireAuthenticatedUserByDefault: 'false',
        PROJECTTEMPLATE__AUTHORIZATION__ADMINISTRATORROLES__0: 'Owner',
        ProjectTemplate__Authentication__Enabled: 'false',
      },
      schema,
    );
    expect(problems).to.deep.equal([]);
    expect(settings.Authorization.RequireAuthenticatedUserByDefault).to.equal(false);
    expect(settings.Authorization.AdministratorRoles).to.deep.equal(['Owner']);
  });

  it('lets the environment override .env whatever the letter case: two sources, not a duplicate', () => {
    writeFileSync(join(root, '.env'), 'PROJECTTEMPLATE__LOGGING__LEVEL=debug\n');
    const { problems, settings } = loadConfiguration(root, { ProjectTemplate__Logging__Level: 'warn' }, schema);
    expect(problems).to.deep.equal([]);
    expect(settings.Logging.Level).to.equal('warn');
  });

  it('refuses the same key twice under two spellings in a JSON file too', () => {
    writeJson('appsettings.json', { ProjectTemplate: { Logging: { Level: 'info', level: 'debug' } } });
    expect(loadConfiguration(root, {}, schema).problems.map((p) => p.key)).to.deep.equal([
      'ProjectTemplate:Logging:Level',
    ]);
  });

  it('reports unknown keys with their path instead of dropping them silently', () => {
    writeJson('appsettings.json', { ProjectTemplate: { Authentication: { Provider: {} } } });
    const { unknownKeys } = loadConfiguration(
      root,
      {
        ProjectTemplate__Authentication__Providers__Social1__Enable: 'true',
      },
      schema,
    );
    expect(unknownKeys.map((u) => u.path.join(':'))).to.have.members([
      'Authentication:Provider',
      'Authentication:Providers:Social1:Enable',
    ]);
    expect(unknownKeys[0]?.siblings).to.include('Providers');
  });

  it('names an unparsable file without quoting its content', () => {
    writeFileSync(join(root, 'config', 'appsettings.json'), '{ "ProjectTemplate": { "x": "SENTINEL" ');
    const { problems } = loadConfiguration(root, {}, schema);
    expect(problems).to.have.length(1);
    expect(problems[0]?.message).to.equal('is not valid JSON');
    expect(JSON.stringify(problems)).not.to.contain('SENTINEL');
  });

  it('collects the values of the keys the schema marks secret', () => {
    const { secretValues } = loadConfiguration(
      root,
      {
        ProjectTemplate__Authentication__Providers__OpenIdConnect__ClientSecret: 'oidc-secret',
        ProjectTemplate__Authentication__Providers__Social2__ClientSecret: 'social-secret',
        ProjectTemplate__Session__Redis__Url: 'redis://:pw@host:6379',
        ProjectTemplate__Session__Keys__0: 'key-zero',
        ProjectTemplate__Authentication__Providers__OpenIdConnect__ClientId: 'not-secret',
      },
      schema,
    );
    expect(secretValues).to.have.members([
      'oidc-secret',
      'social-secret',
      'redis://:pw@host:6379',
      'pw',
      'pw',
      'key-zero',
    ]);
  });

  it("collects a secret URL's password apart from it, as written and decoded", () => {
    const url = 'rediss://app:SENTINEL%2Fpass%40word@cache.example:6380/2';
    const { secretValues } = loadConfiguration(root, { ProjectTemplate__Session__Redis__Url: url }, schema);
    expect(secretValues).to.have.members([url, 'SENTINEL%2Fpass%40word', 'SENTINEL/pass@word']);
  });

  it('reads HOST and PORT, and rejects a PORT that is not a port', () => {
    expect(loadConfiguration(root, { PORT: '8080', HOST: '0.0.0.0' }, schema).listen).to.deep.equal({
      port: 8080,
      host: '0.0.0.0',
    });
    expect(loadConfiguration(root, { PORT: 'eighty' }, schema).problems.map((p) => p.key)).to.deep.equal(['PORT']);
  });

  it('treats any NODE_ENV other than development or test as production', () => {
    expect(loadConfiguration(root, { NODE_ENV: 'staging' }, schema).environment).to.equal('production');
    expect(loadConfiguration(root, { NODE_ENV: 'test' }, schema).environment).to.equal('test');
  });
});

describe('the configuration schema', () => {
  it('is a valid JSON Schema (ajv checks it when it generates the validator)', async () => {
    const { Ajv } = await import('ajv');
    const { projectTemplateSchema } = await import('../../../src/adapters/config/schema.js');
    const ajv = new Ajv({ strict: true });
    ajv.addKeyword({ keyword: 'secret', schemaType: 'boolean' });
    expect(ajv.validateSchema(projectTemplateSchema(builtInProviders)), JSON.stringify(ajv.errors)).to.equal(true);
    expect(ajv.validateSchema({ type: 'object', properties: { x: { type: 'strin' } } })).to.equal(false);
  });

  it('is what the committed validator was generated from (after changing schema.ts, run npm run generate)', async () => {
    const { GENERATED_VALIDATOR_PATH, settingsValidatorSource } =
      await import('../../../scripts/build/settings-validator-source.js');
    const committed = readFileSync(join(projectRoot, GENERATED_VALIDATOR_PATH), 'utf8');
    expect(
      committed === settingsValidatorSource(),
      `${GENERATED_VALIDATOR_PATH} is out of date: run npm run generate`,
    ).to.equal(true);
    // The comparison can fail: one changed type in the schema changes the generated text.
    const { projectTemplateSchema } = await import('../../../src/adapters/config/schema.js');
    const changed = JSON.parse(
      JSON.stringify(projectTemplateSchema(builtInProviders)).replace(
        '"HttpTimeoutSeconds":{"type":"number"}',
        '"HttpTimeoutSeconds":{"type":"string"}',
      ),
    ) as Record<string, unknown>;
    expect(settingsValidatorSource(changed)).to.not.equal(committed);
  });
});
