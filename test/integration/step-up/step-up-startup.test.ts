import { expect } from 'chai';
import { startupOutcome } from '../../support/startup-outcome.js';

const STEP_UP = 'ProjectTemplate__Authorization__StepUp__';

/** The startup rules of Authorization:StepUp, through a whole start: every problem named by its full key, at once. */
describe('step-up configuration at startup', function () {
  this.timeout(20_000);

  it('refuses an unknown policy, a non-positive age and an empty value, naming each key', async () => {
    const { problems } = await startupOutcome({
      [`${STEP_UP}application.Role.Admin__MaxAuthenticationAgeSeconds`]: '300',
      [`${STEP_UP}application.Role.Administrator__MaxAuthenticationAgeSeconds`]: '0',
      [`${STEP_UP}application.Permission.ManageApplication__AuthenticationMethods__0`]: '',
    });
    // Beside the errors, a warning for each name that /bin/sh would have dropped.
    const errors = problems.filter((problem) => problem.startsWith('error'));
    expect(problems.filter((problem) => problem.includes('/bin/sh drops'))).to.have.length(3);
    const keys = errors.map((problem) => problem.split(' ')[1] ?? problem);
    expect(problems.join('\n')).to.contain('ProjectTemplate:Authorization:StepUp:application.Role.Admin');
    expect(problems.join('\n')).to.contain(
      'ProjectTemplate:Authorization:StepUp:application.Role.Administrator:MaxAuthenticationAgeSeconds',
    );
    expect(problems.join('\n')).to.contain(
      'ProjectTemplate:Authorization:StepUp:application.Permission.ManageApplication:AuthenticationMethods',
    );
    expect(keys).to.have.length(3);
  });

  it('starts with a step-up on a built-in policy, named in its Policy key, and logs it', async () => {
    const { problems, logs } = await startupOutcome({
      [`${STEP_UP}AdminPages__Policy`]: 'application.Role.Administrator',
      [`${STEP_UP}AdminPages__MaxAuthenticationAgeSeconds`]: '600',
      [`${STEP_UP}AdminPages__AuthenticationMethods__0`]: 'mfa',
    });
    expect(problems).to.deep.equal([]);
    expect(logs).to.contain(
      'step-up: application.Role.Administrator needs a sign-in within the last 10 minutes and a sign-in with multi-factor authentication (mfa)',
    );
  });
});
