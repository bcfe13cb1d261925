import { relative } from 'node:path';
import { keysToSupply } from './auth-choices.mjs';

/**
 * What the generator prints once the project exists: what it made, and what to do next
 * (the two commands of the new README's quick start, and the keys a provider choice still
 * needs).
 * @param {import('./plan-project.mjs').ProjectPlan} plan
 * @param {string} cwd where the command was typed, for the `cd` line
 * @returns {string}
 */
export function nextSteps(plan, cwd) {
  const where = relative(cwd, plan.target) || '.';
  const keys = keysToSupply(plan.choice);
  const width = Math.max(0, ...keys.map((key) => key.variable.length)) + 2;
  return [
    `Created ${plan.target}: ${plan.files.length} files from Gatehouse ${plan.templateVersion}.`,
    `  package name   ${plan.name}${plan.nameFromDirectory ? " (from the directory's name)" : ''}`,
    `  --authProvider ${plan.choiceName}: ${plan.choice.summary}`,
    '  left out       the generator, installed packages, build and test output, local settings and secrets',
    '',
    'Next steps:',
    `  cd ${/\s/.test(where) ? JSON.stringify(where) : where}`,
    '  npm install',
    '  npm run demo     # sign in against a local demo identity provider (admin or user, any password)',
    ...(keys.length === 0
      ? ['', 'Then `npm start` serves the application, and README.md describes its authentication posture.']
      : [
          '',
          'Before `npm start`, supply these keys (README.md lists them too). Secrets go in .env (git-ignored),',
          'the environment or your secret store, never in the repository; the others may go in',
          'config/appsettings.json:',
          ...keys.map((key) => `  ${key.variable.padEnd(width)}${key.secret ? '(secret) ' : ''}${key.what}`),
        ]),
  ].join('\n');
}
