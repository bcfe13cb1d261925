/**
 * What `--authProvider connections` adds beyond its posture (auth-choices.mjs): the
 * connections folder with one example connection, and the README's part on adding a
 * customer (docs/connections.md is the whole guide).
 *
 * The example is `example.json.sample`, not a `.json` file: only `*.json` files of the
 * folder are read, and the example's placeholders (the customer's domain and metadata URL,
 * this application's public origin) would have it refused and logged at every start. A
 * working example would need a real identity provider (the demo's take a new port at every
 * `npm run demo`) and would sign people in through it wherever the project is deployed.
 */

/**
 * The files the choice adds, under its connections folder.
 * @param {import('./auth-choices.mjs').AuthChoice} choice
 * @returns {Array<{ path: string, text: string }>}
 */
export function connectionFiles(choice) {
  if (!choice.connectionsDirectory) return [];
  return [{ path: `${choice.connectionsDirectory}/example.json.sample`, text: exampleConnection() }];
}

/** A SAML2 connection for a customer Acme; each `<...>` is to be replaced. */
function exampleConnection() {
  const example = {
    Protocol: 'Saml2',
    Organization: 'acme',
    DisplayName: 'Acme Corporation',
    Domains: ["<the customer's e-mail domain, such as acme.com>"],
    EntityId: '<PublicOrigin>/connections/acme/saml2/acs',
    MetadataUrl: "<the customer's SAML metadata URL (https)>",
  };
  return `${JSON.stringify(example, null, 2)}\n`;
}

/**
 * The README's posture section for the choice.
 * @param {string} choiceName
 * @param {string} directory
 * @returns {string[]}
 */
export function connectionsPosture(choiceName, directory) {
  return [
    `**Connections are on** (\`--authProvider ${choiceName}\`): each customer organization signs in through its`,
    'own OpenID Connect or SAML2 identity provider, a *connection*, found by the domain of the e-mail',
    'address its people type in "Sign in with your work e-mail" on the login page.',
    `\`config/appsettings.json\` sets \`ProjectTemplate:Authentication:ConnectionsDirectory\` to \`${directory}\`:`,
    'one `<Name>.json` file per connection in that folder, read at start and looked at every 2 seconds, so',
    'a customer is added, changed or removed without a restart. Local cookie authentication holds the',
    'session after sign-in, and every routed endpoint without metadata requires a signed-in user.',
    `As generated, \`${directory}/\` holds no connection, only an example that is not loaded, so the login`,
    'page answers that no organization signs in with a domain until you add one. `npm run demo` shows two',
    'organizations signing in through their own demo identity providers.',
    '',
    '### Adding a customer',
    '',
    `1. Copy \`${directory}/example.json.sample\` to \`${directory}/<name>.json\`. The name is the connection's`,
    '   (letters, digits and `-`; `acme`), and its paths are under `/connections/<name>/`. Only `*.json`',
    '   files are read: the sample is not, because its `<...>` placeholders would have it refused and',
    '   logged at every start.',
    '2. Set `Organization` (your identifier of the customer: every sign-in through the connection carries it',
    '   as `application:organization`), `DisplayName` and `Domains` (the e-mail domains of its people), then',
    "   the identity provider's keys. For SAML2 (the sample): `EntityId`, `PublicOrigin` followed by",
    "   `/connections/<name>/saml2/acs`, and the customer's `MetadataUrl`. For OpenID Connect:",
    '   `"Protocol": "OpenIdConnect"` with `Authority`, `ClientId` and `ClientSecretFile`.',
    '3. Give the customer what their identity provider needs: for SAML2 the metadata URL',
    '   `PublicOrigin/connections/<name>/saml2/acs`; for OpenID Connect the redirect URI',
    '   `PublicOrigin/connections/<name>/signin-oidc`.',
    '4. Check `/health/ready`: the connection is listed by name. A file that breaks a rule is refused and',
    '   logged, naming the file and the key; the other connections keep working.',
    '',
    `In deployment, the folder is usually a mounted volume (a Kubernetes ConfigMap): point`,
    '`ProjectTemplate__Authentication__ConnectionsDirectory` at it. The start refuses a folder that does not',
    `exist, so a deployment without one needs either that setting or \`${directory}/\` copied beside \`config/\`.`,
    '',
    'Secrets (a client secret, a SAML private key) are given as files (`ClientSecretFile`, `SigningKeyFile`',
    '...) in the folder or in `ProjectTemplate:Authentication:ConnectionSecretsDirectory` (a mounted',
    'Kubernetes Secret), each named after its connection (`<name>.client-secret`), never in a file of the',
    'repository. Everything else (the keys, the paths, the organization guard and the attack it stops,',
    'readiness): `docs/connections.md`.',
  ];
}

/** The README's sentence on how the project starts as generated. */
export const CONNECTIONS_STARTUP_SENTENCE =
  'As generated it starts with no further configuration: local cookie authentication on, the login\npage\'s e-mail form on, and no connection until one is added (see "Adding a customer" above).';
