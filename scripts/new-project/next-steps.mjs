import { relative } from 'node:path';
import { keysToSupply } from './auth-choices.mjs';
import { postgresNextSteps } from './database-choice.mjs';

/**
 * What the generator prints once the project exists: what it made, and what to do next
 * (the commands of the new README's quick start, and the keys `npm start` needs: a provider
 * choice's, or for the default where the login page and the provider pages name them).
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
    '  npm test         # passes as generated: the tests configure what they check, no key needed',
    '  npm run demo     # sign in against local demo identity providers (admin or user, any password)',
    ...(keys.length === 0
      ? ['', ...startWithoutKeys(plan.choice), ...databaseSteps(plan)]
      : [
          '',
          'Before `npm start`, supply these keys (README.md lists them too). Secrets go in .env (git-ignored),',
          'the environment or your secret store, never in the repository; the others may go in',
          'config/appsettings.json:',
          ...keys.map((key) => `  ${key.variable.padEnd(width)}${key.secret ? '(secret) ' : ''}${key.what}`),
          ...(plan.choice.docsPage ? [`What to register at the provider, and every key: ${plan.choice.docsPage}`] : []),
        ]),
  ].join('\n');
}

/** @param {import('./plan-project.mjs').ProjectPlan} plan @returns {string[]} */
function databaseSteps({ database, choice }) {
  return database === 'postgres' && choice.connectionsDirectory ? postgresNextSteps(choice.connectionsDirectory) : [];
}

/** @param {import('./auth-choices.mjs').AuthChoice} choice @returns {string[]} */
function startWithoutKeys(choice) {
  if (!choice.authentication)
    return ['Then `npm start` serves the application, with authentication off (README.md says what that means).'];
  const folder = choice.connectionsDirectory;
  if (folder)
    return [
      '`npm start` serves the application with no key at all, but no organization can sign in until a',
      `connection is in ${folder}/. Copy the example ${folder}/example.json.sample to ${folder}/<name>.json`,
      '(only *.json files are read), then replace each <...>: Domains (the e-mail domains of its people),',
      "EntityId (your PublicOrigin followed by /connections/<name>/saml2/acs) and MetadataUrl (the customer's",
      'SAML metadata); or "Protocol": "OpenIdConnect" with Authority, ClientId and ClientSecretFile.',
      'README.md, "Adding a customer", walks through it; docs/connections.md has every key.',
    ];
  return [
    '`npm start` serves the application with no key at all, but nobody can sign in until a provider is on:',
    'its login page names the keys of one (OpenID Connect, SAML2, Microsoft, Amazon or GitHub), and',
    'docs/providers/ has a page for each.',
  ];
}
