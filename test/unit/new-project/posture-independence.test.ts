/**
 * A generated project's `--authProvider` choice writes only posture keys into its
 * config/appsettings.json, and the suites that exercise sign-in, sessions and policies run
 * with Gatehouse's built-in posture spelled as environment variables (COOKIE_POSTURE), which
 * win over that file. Every key a choice writes must therefore be one COOKIE_POSTURE sets:
 * then those suites pass or fail alike in every generated project, and the generator's slow
 * suite runs them whole in one project only (test/new-project/generated-projects.test.ts).
 */
import { expect } from 'chai';
import { AUTH_CHOICES, postureSettings } from '../../../scripts/new-project/auth-choices.mjs';
import { COOKIE_POSTURE } from '../../../scripts/cookie-posture.js';

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
