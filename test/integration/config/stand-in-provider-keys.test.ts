/**
 * The stand-in keys the posture suites start this project with: with each provider's
 * starter values (config/appsettings.json) and the provider enabled, they leave no startup
 * rule unmet, so a project generated for any provider passes its own `npm test` before its
 * operator has supplied a key.
 */
import { expect } from 'chai';
import { loadConfiguration } from '../../../src/adapters/config/load-configuration.js';
import { settingsSchema } from '../../../src/adapters/config/settings-schema.js';
import { findProjectRoot } from '../../../src/bootstrap/project-root.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { checkSettings } from '../../../src/domain/settings/check-settings.js';
import { STAND_IN_PROVIDER_KEYS } from '../../support/stand-in-provider-keys.js';

describe('stand-in provider keys (for the suites that check the posture this project ships)', () => {
  for (const provider of builtInProviders) {
    it(`${provider.key}: enabled with its starter values, meets every startup rule`, async () => {
      const schema = await settingsSchema(builtInProviders);
      const configuration = loadConfiguration(
        findProjectRoot(),
        {
          NODE_ENV: 'test',
          ...STAND_IN_PROVIDER_KEYS,
          [`ProjectTemplate__Authentication__Providers__${provider.key}__Enabled`]: 'true',
        },
        schema,
      );
      expect(configuration.problems).to.deep.equal([]);
      const errors = checkSettings(configuration.settings, {
        environment: 'test',
        unknownKeys: configuration.unknownKeys,
        providers: builtInProviders,
        isRoutedPath: () => false,
      }).filter((problem) => problem.severity === 'error');
      expect(errors.map((problem) => `${problem.key} ${problem.message}`)).to.deep.equal([]);
    });
  }
});
