/**
 * A generated project's `--authProvider` choice writes only posture keys into its
 * config/appsettings.json, and the suites that exercise sign-in, sessions and policies run
 * with Gatehouse's built-in posture spelled as environment variables (COOKIE_POSTURE), which
 * win over that file. Every key a choice writes must therefore be one COOKIE_POSTURE sets:
 * then those suites pass or fail alike in every generated project, and the generator's slow
 * suite runs them whole in one project only (test/new-project/generated-projects.test.ts).
 * The same holds for the keys `--database` writes, but for one that is written as
 * Gatehouse's default (`Database:Migrate`), which those suites read alike anyway.
 */
import { expect } from 'chai';
import { AUTH_CHOICES, postureSettings } from '../../../scripts/new-project/auth-choices.mjs';
import { DATABASE_CHOICES, databaseSettings } from '../../../scripts/new-project/database-choice.mjs';
import { COOKIE_POSTURE } from '../../../scripts/cookie-posture.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { defaultSettings } from '../../../src/domain/settings/default-settings.js';

describe('the built-in posture covers every key an --authProvider choice writes', () => {
  for (const [name, choice] of Object.entries(AUTH_CHOICES)) {
    it(`--authProvider ${name}`, () => {
      const written = postureSettings(choice, (provider) => `${provider}Scheme`).map(
        (setting) => `ProjectTemplate__${setting.path.join('__')}`,
      );
      expect(written).to.have.length.greaterThan(3);
      const overridden = Object.keys(COOKIE_POSTURE);
      expect(written.filter((key) => !overridden.includes(key))).to.deep.equal([]);
    });
  }
});

describe('the built-in posture covers every key a --database choice writes', () => {
  const defaults = defaultSettings(builtInProviders) as unknown as Record<string, unknown>;
  const builtIn = (path: string[]) =>
    path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], defaults);

  for (const name of Object.keys(DATABASE_CHOICES)) {
    it(`--database ${name}: each key is in the built-in posture, or written as Gatehouse's default`, () => {
      const uncovered = databaseSettings(name).filter(
        ({ path, value }) => !(`ProjectTemplate__${path.join('__')}` in COOKIE_POSTURE) && value !== builtIn(path),
      );
      expect(uncovered).to.deep.equal([]);
    });
  }

  it('--database postgres turns the administration API on, and the built-in posture turns it off', () => {
    expect(databaseSettings('postgres')).to.deep.include({ path: ['Administration', 'Enabled'], value: true });
    expect(COOKIE_POSTURE.ProjectTemplate__Administration__Enabled).to.equal('false');
  });
});
