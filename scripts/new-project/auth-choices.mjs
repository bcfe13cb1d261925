/**
 * The `--authProvider` choices: the authentication posture each one writes into the new
 * project's config/appsettings.json, and the keys still to supply before it starts. The
 * keys are those the startup rules (src/domain/settings/provider-rules.ts) report for the
 * provider's starter values; test/integration/new-project/auth-choices.test.ts generates
 * every choice and compares, so this table and the rules cannot drift apart.
 */

/** @typedef {'OpenIdConnect' | 'Saml2' | 'Social1' | 'Social2' | 'Social3'} ProviderKey */

/**
 * @typedef {object} KeyToSupply
 * @property {string} name the key below the provider's section
 * @property {boolean} secret declared secret by the settings schema: never in the repository
 * @property {string} what what to put there
 */

/**
 * @typedef {object} AuthChoice
 * @property {string} summary one line: what the choice sets
 * @property {boolean} authentication Authentication:Enabled, and with it cookie authentication and the authenticated fallback
 * @property {ProviderKey} [provider] the external provider it enables with its starter values
 * @property {boolean} [challengeDirectly] DefaultChallengeScheme is the provider's scheme: anonymous browsers go straight to it
 * @property {string} [connectionsDirectory] Authentication:ConnectionsDirectory: connections from this folder (connections-choice.mjs)
 * @property {KeyToSupply[]} keysToSupply what the startup rules still require
 * @property {string} [docsPage] the provider's page in docs/: what to register there, every key
 * @property {string} [vendor] the company behind a neutrally named provider key (Social1: Microsoft)
 */

export const PROVIDER_KEYS = /** @type {const} */ (['OpenIdConnect', 'Saml2', 'Social1', 'Social2', 'Social3']);

/** @param {string} what @returns {KeyToSupply[]} */
const clientCredentials = (what) => [
  { name: 'ClientId', secret: false, what: `the client ID of this application's registration at ${what}` },
  { name: 'ClientSecret', secret: true, what: `the client secret of that registration` },
];

// OpenID Connect and SAML2 usually front one organisation's directory, so anonymous
// browsers go straight to it (as `dotnet new --auth SingleOrg` does); a social sign-in is
// usually one choice among several, so the login page lists it.
/** @type {Readonly<Record<string, AuthChoice>>} */
export const AUTH_CHOICES = {
  cookies: {
    summary:
      'sign-in through an identity provider you enable later (none is on yet), the signed-in session kept in a cookie, every unannotated endpoint needing a signed-in user (the default)',
    authentication: true,
    keysToSupply: [],
  },
  none: {
    summary:
      'authentication off, an explicit opt-out: no session cookie, unannotated endpoints public, endpoints that demand authorization answer 403',
    authentication: false,
    keysToSupply: [],
  },
  oidc: {
    summary: 'OpenID Connect sign-in enabled with its starter values; anonymous browsers go straight to the provider',
    authentication: true,
    provider: 'OpenIdConnect',
    docsPage: 'docs/providers/openid-connect.md',
    challengeDirectly: true,
    keysToSupply: [
      { name: 'Authority', secret: false, what: "the identity provider's issuer URL (https)" },
      ...clientCredentials('the identity provider'),
    ],
  },
  saml2: {
    summary: 'SAML2 sign-in enabled with its starter values; anonymous browsers go straight to the identity provider',
    authentication: true,
    provider: 'Saml2',
    docsPage: 'docs/providers/saml2.md',
    challengeDirectly: true,
    keysToSupply: [
      { name: 'EntityId', secret: false, what: "this application's SAML2 entity ID (an absolute URL)" },
      { name: 'MetadataUrl', secret: false, what: "the identity provider's metadata URL (https)" },
    ],
  },
  social1: {
    summary: 'Social1 (Microsoft) sign-in enabled with its starter values; the login page offers it',
    authentication: true,
    provider: 'Social1',
    vendor: 'Microsoft',
    docsPage: 'docs/providers/social.md',
    challengeDirectly: false,
    keysToSupply: clientCredentials('Microsoft (an Entra app registration)'),
  },
  social2: {
    summary: 'Social2 (Amazon) sign-in enabled with its starter values; the login page offers it',
    authentication: true,
    provider: 'Social2',
    vendor: 'Amazon',
    docsPage: 'docs/providers/social.md',
    challengeDirectly: false,
    keysToSupply: clientCredentials('Amazon (a Login with Amazon security profile)'),
  },
  social3: {
    summary: 'Social3 (GitHub) sign-in enabled with its starter values; the login page offers it',
    authentication: true,
    provider: 'Social3',
    vendor: 'GitHub',
    docsPage: 'docs/providers/social.md',
    challengeDirectly: false,
    keysToSupply: clientCredentials('GitHub (an OAuth app)'),
  },
  connections: {
    summary:
      'customer organizations sign in through their own OpenID Connect or SAML2 identity providers, one file each in connections/ (an example included), found by the e-mail address typed on the login page',
    authentication: true,
    connectionsDirectory: 'connections',
    keysToSupply: [],
  },
};

export const DEFAULT_CHOICE = 'cookies';

/**
 * The values a choice writes under `ProjectTemplate` in config/appsettings.json: the whole
 * posture, whatever the template's own file says, so every choice is the same every time.
 * @param {AuthChoice} choice
 * @param {(provider: ProviderKey) => string} schemeOf the provider's `Scheme` in the template's settings
 * @returns {Array<{ path: string[], value: boolean | string }>}
 */
export function postureSettings(choice, schemeOf) {
  return [
    { path: ['Authentication', 'Enabled'], value: choice.authentication },
    {
      path: ['Authentication', 'DefaultChallengeScheme'],
      value: choice.provider && choice.challengeDirectly ? schemeOf(choice.provider) : 'Cookies',
    },
    ...PROVIDER_KEYS.map((provider) => ({
      path: ['Authentication', 'Providers', provider, 'Enabled'],
      value: provider === choice.provider,
    })),
    { path: ['Authentication', 'ConnectionsDirectory'], value: choice.connectionsDirectory ?? '' },
    // The startup rules refuse authentication off with the fallback on (docs: Startup validation, 3).
    { path: ['Authorization', 'RequireAuthenticatedUserByDefault'], value: choice.authentication },
  ];
}

/**
 * Every key a choice leaves to supply, spelled in full and as an environment variable.
 * @param {AuthChoice} choice
 */
export function keysToSupply(choice) {
  return choice.keysToSupply.map((key) => {
    const full = ['ProjectTemplate', 'Authentication', 'Providers', choice.provider ?? '', key.name];
    return { ...key, key: full.join(':'), variable: full.join('__') };
  });
}
