/**
 * The generator's table of choices against the startup rules: the keys each choice lists as
 * still to supply are exactly those the rules report for the generated configuration, and
 * a generated provider project's own startup names them.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AUTH_CHOICES, keysToSupply, PROVIDER_KEYS } from '../../../scripts/new-project/auth-choices.mjs';
import { loadConfiguration } from '../../../src/adapters/config/load-configuration.js';
import { settingsSchema, type SettingsSchema } from '../../../src/adapters/config/settings-schema.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { checkSettings } from '../../../src/domain/settings/check-settings.js';
import { freePort } from '../../../scripts/free-port.js';
import {
  cleanEnvironment,
  generate,
  linkTemplateModules,
  removeFolder,
  run,
  templateRoot,
  temporaryFolder,
} from '../../new-project/generated-project.js';

const choices = Object.entries(AUTH_CHOICES);
const providerChoices = choices.filter(([, choice]) => choice.provider !== undefined);

describe('new project: the keys each --authProvider choice leaves to supply', function () {
  this.timeout(30_000);
  let folder: string;
  let schema: SettingsSchema;
  const projects = new Map<string, string>();

  before(async () => {
    schema = await settingsSchema(builtInProviders);
    folder = temporaryFolder('choices');
    for (const [name] of choices) {
      const target = join(folder, `${name}-app`);
      generate(target, { authProvider: name });
      projects.set(name, target);
    }
  });
  after(() => removeFolder(folder));

  for (const [name, choice] of choices) {
    it(`${name}: are exactly what the startup rules report for the generated configuration`, () => {
      const configuration = loadConfiguration(projects.get(name) ?? '', { NODE_ENV: 'development' }, schema);
      expect(configuration.problems).to.deep.equal([]);
      const problems = checkSettings(configuration.settings, {
        environment: 'development',
        unknownKeys: configuration.unknownKeys,
        providers: builtInProviders,
        isRoutedPath: () => false,
      });
      const reported = problems.filter((p) => p.severity === 'error').map((p) => p.key);
      expect(reported.sort()).to.deep.equal(
        keysToSupply(choice)
          .map((key) => key.key)
          .sort(),
      );
    });
  }

  it('offer one choice for every provider this build ships, and none for a provider it does not', () => {
    const offered = providerChoices.map(([, choice]) => choice.provider);
    const shipped = builtInProviders.map((provider) => provider.key);
    expect(offered).to.have.members(shipped);
    expect([...PROVIDER_KEYS]).to.have.members(shipped);
  });

  it("name, for each provider choice, the provider's page in docs/, which exists", () => {
    for (const [name, choice] of providerChoices) {
      expect(choice.docsPage, name).to.match(/^docs\/providers\/[a-z0-9-]+\.md$/);
      expect(existsSync(join(templateRoot, choice.docsPage ?? '')), `${name}: ${choice.docsPage}`).to.equal(true);
    }
  });

  it('mark as secret exactly the keys the settings schema declares secret', () => {
    const secrets = schema.secretKeyPaths.map((path) => ['ProjectTemplate', ...path].join(':'));
    for (const [name, choice] of providerChoices) {
      for (const key of keysToSupply(choice))
        expect(key.secret, `${name}: ${key.key}`).to.equal(secrets.includes(key.key));
    }
  });

  describe("named by a generated provider project's own startup", () => {
    before(() => {
      for (const [name] of providerChoices) linkTemplateModules(projects.get(name) ?? '');
    });

    it('oidc, saml2, social1, social2, social3: the entry point stops before listening and names each key', async () => {
      const port = String(await freePort()); // never listened on: every start must stop first
      const results = await Promise.all(
        providerChoices.map(async ([name, choice]) => ({
          name,
          choice,
          result: await run(process.execPath, ['--import', 'tsx', 'src/bootstrap/main.ts'], projects.get(name) ?? '', {
            env: cleanEnvironment({ NODE_ENV: 'development', PORT: port }),
            timeoutMs: 20_000,
          }),
        })),
      );
      for (const { name, choice, result } of results) {
        expect(result.status, `${name}: ${result.stderr}`).to.equal(1);
        expect(result.stdout, name).not.to.contain('listening');
        const named = [...result.stderr.matchAll(/^ {2}error: (ProjectTemplate:\S+) /gm)].map((match) => match[1]);
        const keys = keysToSupply(choice).map((key) => key.key);
        expect(named, `${name}: ${result.stderr}`).to.include.members(keys);
        // Beyond them, at most the provider's Enabled key: whether this build ships its
        // adapter is the startup rules' business, not the generator's.
        const enabledKey = `ProjectTemplate:Authentication:Providers:${choice.provider}:Enabled`;
        expect(
          named.filter((key) => !keys.includes(key ?? '') && key !== enabledKey),
          `${name}: ${result.stderr}`,
        ).to.deep.equal([]);
      }
    });
  });
});
