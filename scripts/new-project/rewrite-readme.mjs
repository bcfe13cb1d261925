import { keysToSupply } from './auth-choices.mjs';
import { CONNECTIONS_STARTUP_SENTENCE, connectionsPosture } from './connections-choice.mjs';
import { DEFAULT_DATABASE, postgresPosture } from './database-choice.mjs';
import {
  README_DEFAULT_POSTURE_PARAGRAPH,
  README_FIRST_KEPT_HEADING,
  README_GENERATOR_COMMANDS,
  README_GENERATOR_SECTION,
} from './template-manifest.mjs';

/**
 * @typedef {object} ReadmeFacts
 * @property {string} name the new package's name
 * @property {string} templateVersion
 * @property {string} choiceName the --authProvider value
 * @property {import('./auth-choices.mjs').AuthChoice} choice
 * @property {string} [database] the --database value
 * @property {{ scheme: string, displayName: string, callbackPath: string } | undefined} provider its starter values
 */

/**
 * The new project's README: Gatehouse's, with its own title and introduction, a section on
 * the posture the choice set (and the keys still to supply), and the generator's parts
 * removed (template-manifest.mjs). Each anchor must be found: a README that changed shape
 * fails generation loudly instead of shipping a half-rewritten file.
 * @param {string} readme the template's README.md
 * @param {ReadmeFacts} facts
 * @returns {string}
 */
export function rewriteReadme(readme, facts) {
  const start = readme.indexOf(`\n${README_FIRST_KEPT_HEADING}\n`);
  if (start < 0) throw new Error(`README.md has no "${README_FIRST_KEPT_HEADING}" heading`);
  let body = readme.slice(start + 1);
  body = removeSection(body, README_GENERATOR_SECTION);
  for (const command of README_GENERATOR_COMMANDS) body = removeTableRows(body, `| ${command}`);
  body = replaceParagraph(body, README_DEFAULT_POSTURE_PARAGRAPH, startupSentence(facts));
  return `${header(facts)}\n${body}`;
}

/** @param {ReadmeFacts} facts */
function header(facts) {
  const { name, templateVersion, choiceName, database = DEFAULT_DATABASE } = facts;
  const options = `--authProvider ${choiceName}${database === DEFAULT_DATABASE ? '' : ` --database ${database}`}`;
  return [
    `# ${name}`,
    '',
    `A Koa web application generated from Gatehouse ${templateVersion} with \`${options}\`.`,
    "The documentation below is Gatehouse's and applies to this project as generated: the code is",
    'now yours to change.',
    '',
    '## Authentication posture of this project',
    '',
    ...postureSection(facts),
    '',
  ].join('\n');
}

/** @param {ReadmeFacts} facts @returns {string[]} */
function postureSection(facts) {
  const { choice, choiceName } = facts;
  if (!choice.authentication) {
    return [
      `**Authentication is off.** This project was generated with \`--authProvider ${choiceName}\`, an explicit`,
      'opt-out: `config/appsettings.json` sets `ProjectTemplate:Authentication:Enabled` and',
      '`ProjectTemplate:Authorization:RequireAuthenticatedUserByDefault` to `false`. Cookie authentication',
      'is part of the authentication module and is off with it: no session cookie is issued.',
      '',
      '**Unannotated endpoints are public until this application adds its own authentication and',
      'authorization posture.** Every routed endpoint without authorization metadata (the starter page',
      '`/` and `/api/app-info` as generated, and every route you add without `authorize(...)`) answers',
      'anyone. Endpoints that demand authorization (`authorize(...)`, such as `/api/app-info/admin`)',
      'answer 403 `auth.disabled`, saying that nobody can sign in. The allowlist, crawler and policy',
      'tests check this posture as `config/appsettings.json` states it.',
      '',
      'To close the application, set both keys to `true` and enable a provider (see Configuration);',
      'the startup rules refuse authentication off with the authenticated fallback on. `npm run demo`',
      "always runs with Gatehouse's own posture (sign-in on) against local demo identity providers, to",
      'show what that looks like.',
    ];
  }
  if (choice.connectionsDirectory) {
    return [
      ...connectionsPosture(choiceName, choice.connectionsDirectory),
      ...(facts.database === 'postgres' ? postgresPosture(choice.connectionsDirectory) : []),
    ];
  }
  if (!choice.provider || !facts.provider) {
    return [
      '**Authentication is on, no identity provider is enabled yet, and every routed endpoint without',
      `metadata requires a signed-in user** (\`--authProvider ${choiceName}\`, Gatehouse's default posture).`,
      'People sign in through an identity provider (OpenID Connect, SAML2, Microsoft, Amazon or GitHub)',
      'and stay signed in through a session cookie; there is no password form of its own. Until you',
      'enable one, nobody can sign in: the login page names the keys of one, and each has its page in',
      '`docs/providers/` (see Configuration). `npm run demo` shows sign-ins against local demo providers.',
    ];
  }
  const { scheme, displayName, callbackPath } = facts.provider;
  const section = `ProjectTemplate:Authentication:Providers:${choice.provider}`;
  return [
    `**${displayName}${choice.vendor ? ` (${choice.vendor})` : ''} sign-in is on** (\`--authProvider ${choiceName}\`): \`config/appsettings.json\` sets`,
    `\`${section}:Enabled\` to \`true\` with the provider's starter values.`,
    ...(choice.challengeDirectly
      ? [
          `\`ProjectTemplate:Authentication:DefaultChallengeScheme\` is \`${scheme}\`, so an anonymous browser goes`,
          'straight to the provider rather than to the login page.',
        ]
      : ['The login page offers it.']),
    'After sign-in the session is held in a cookie, and every routed endpoint without metadata',
    'requires a signed-in user.',
    '',
    '### Keys still to supply',
    '',
    'Until these keys hold real values, `npm start` stops and names them. `npm test` passes without',
    'them: the suites that check this posture (the allowlist, crawler, policy and startup suites) start',
    'the project as configured with stand-in keys of their own (`test/support/stand-in-provider-keys.ts`),',
    'never yours.',
    '',
    '| key | environment variable | what | where it goes |',
    '|---|---|---|---|',
    ...keysToSupply(choice).map(
      (key) =>
        `| \`${key.key}\` | \`${key.variable}\` | ${key.what} | ${
          key.secret
            ? '**a secret**: `.env` in development (git-ignored; start from `.env.example`), environment variables or your secret store in deployment; never the repository'
            : '`config/appsettings.json` (committed) or the environment'
        } |`,
    ),
    '',
    `Register your public origin followed by \`${callbackPath}\` (\`ProjectTemplate:Hosting:PublicOrigin\` and the`,
    "provider's callback path) at the provider. Secrets (client secrets, certificates, private keys,",
    'provider metadata, tokens) never go into the repository: `.env` is git-ignored,',
    '`config/appsettings.json` is committed. The starter values are starting points: bind them to',
    'production URLs, provider registrations, claims, token policy, secret management, session',
    'behaviour and MFA expectations before production use (see the Production checklist).',
    ...(choice.docsPage ? ['', `What to register at the provider, and every key of it: \`${choice.docsPage}\`.`] : []),
  ];
}

/** @param {ReadmeFacts} facts */
function startupSentence({ choice }) {
  if (!choice.authentication) {
    return 'As generated it starts with no further configuration, with authentication off: every\nunannotated endpoint is public (see "Authentication posture of this project" above).';
  }
  if (choice.connectionsDirectory) return CONNECTIONS_STARTUP_SENTENCE;
  if (choice.provider) {
    return 'As generated it starts once the keys under "Keys still to supply" above hold real values;\nuntil then it stops and names them.';
  }
  return 'As generated it starts with no further configuration: authentication on, every identity\nprovider off (the login page then says which keys enable one).';
}

/** Removes a `## ` section, from its heading to the next one. @param {string} text @param {string} heading */
function removeSection(text, heading) {
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "${heading}" section`);
  const next = text.indexOf('\n## ', start + 1);
  return text.slice(0, start + 1) + (next < 0 ? '' : text.slice(next + 1));
}

/** @param {string} text @param {string} prefix */
function removeTableRows(text, prefix) {
  const lines = text.split('\n');
  const kept = lines.filter((line) => !line.startsWith(prefix));
  if (kept.length === lines.length) throw new Error(`README.md has no table row starting with "${prefix}"`);
  return kept.join('\n');
}

/** Replaces the paragraph starting with `opening` (up to the next blank line). @param {string} text @param {string} opening @param {string} replacement */
function replaceParagraph(text, opening, replacement) {
  const start = text.indexOf(`\n${opening}`);
  if (start < 0) throw new Error(`README.md has no paragraph starting with "${opening}"`);
  const end = text.indexOf('\n\n', start + 1);
  return text.slice(0, start + 1) + replacement + (end < 0 ? '\n' : text.slice(end));
}
