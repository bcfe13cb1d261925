/**
 * `npm run demo`: a newcomer's first minute. Starts a real OpenID provider (oidc-provider,
 * a devDependency), a SAML 2.0 identity provider (scripts/demo-saml-identity-provider.ts)
 * and three local servers shaped like Microsoft, Amazon and GitHub, all on loopback with
 * the same two demo users, and two customer organizations with identity providers and
 * people of their own (scripts/demo-organizations.ts: connections, from a folder of
 * connection files), then Gatehouse configured against them (the social providers
 * through their endpoint overrides), with the administration API on over that folder, a
 * third organization's provider waiting for its IT admin to connect it through the setup
 * link printed here, and a DNS server of its own for the organizations' domains
 * (scripts/demo-administration.ts). Development only: it refuses
 * NODE_ENV=production, and nothing in src/ imports it.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { loadPrettyLogLines } from '../src/adapters/logging/pretty-log-lines.js';
import { createGatehouse } from '../src/bootstrap/gatehouse.js';
import { dropSqliteExperimentalWarning, dropUrlParseDeprecation } from '../src/bootstrap/process-warnings.js';
import { listenFailure } from '../src/bootstrap/listen-failure.js';
import { formatProblem, StartupError } from '../src/bootstrap/startup-error.js';
import { startDemoAdministration } from './demo-administration.js';
import { seedDemoDirectory, startDemoDirectoryStore } from './demo-directory.js';
import { startDemoIdentityProvider } from './demo-identity-provider.js';
import { startDemoOrganizations, type DemoOrganization } from './demo-organizations.js';
import { startDemoSamlIdentityProvider } from './demo-saml-identity-provider.js';
import {
  DEMO_BACKCHANNEL_LOGOUT_PATH,
  DEMO_CALLBACK_PATH,
  DEMO_FRONTCHANNEL_LOGOUT_PATH,
  demoSamlServiceProvider,
  demoSamlSettings,
  demoSettings,
  YOUR_APP_CLIENT,
  yourAppClient,
} from './demo-settings.js';
import { makeSigningCredential } from './saml/signing-credential.js';
import { startDemoSocialProviders } from './demo-social-providers.js';
import { preferredPort, PREFERRED_DEMO_METRICS_PORT, yourAppPort } from './your-app-port.js';

if ((process.env.NODE_ENV ?? 'development') === 'production') {
  console.error('npm run demo is for development only; it will not run with NODE_ENV=production.');
  process.exit(1);
}

// The warnings the entry point drops (process-warnings.ts say why), dropped for the demo's terminal too.
dropUrlParseDeprecation();
dropSqliteExperimentalWarning();

const port = Number(process.env.PORT ?? 3000);
// Before five servers start: a port still held by an earlier run is said in one line.
await ensureFree(port);
const appOrigin = `http://127.0.0.1:${port}`;
// Where a Gatehouse of your own may run against these providers (docs/demo.md: "Your own configuration against
// the demo providers"): 3001, unless the demo itself is there or it is taken, then another free port.
const yourAppOrigin = (process.env.DEMO_YOUR_APP_ORIGIN ?? `http://127.0.0.1:${await yourAppPort(port)}`).replace(
  /\/+$/,
  '',
);
const yourAppListenPort = new URL(yourAppOrigin).port || '80';
const clientId = 'gatehouse-demo';
const clientSecret = randomBytes(24).toString('base64url');

const idp = await startDemoIdentityProvider({
  port: Number(process.env.DEMO_IDP_PORT ?? 0),
  clients: [
    {
      clientId,
      clientSecret,
      redirectUris: [`${appOrigin}${DEMO_CALLBACK_PATH}`],
      postLogoutRedirectUris: [`${appOrigin}/`],
      backchannelLogoutUri: `${appOrigin}${DEMO_BACKCHANNEL_LOGOUT_PATH}`,
      frontchannelLogoutUri: `${appOrigin}${DEMO_FRONTCHANNEL_LOGOUT_PATH}`,
    },
    yourAppClient(yourAppOrigin),
  ],
});

// DEMO_SAML_ENCRYPT=1: the SAML identity provider encrypts its assertions to an encryption
// key pair made here for Gatehouse, which then requires encrypted assertions.
const samlEncryption = ['1', 'true'].includes(process.env.DEMO_SAML_ENCRYPT ?? '')
  ? makeSigningCredential({ commonName: 'gatehouse-demo-sp-encryption' })
  : undefined;
// Gatehouse's SAML signing pair: AuthnRequests and single-logout messages are signed with it.
const samlSigning = makeSigningCredential({ commonName: 'gatehouse-demo-sp' });
const samlIdp = await startDemoSamlIdentityProvider({
  port: Number(process.env.DEMO_SAML_IDP_PORT ?? 0),
  serviceProviders: [demoSamlServiceProvider(appOrigin, samlSigning, samlEncryption)],
});

const social = await startDemoSocialProviders(appOrigin, (vendor) => `${vendor} (local demo server)`);
const organizations = await startDemoOrganizations(appOrigin);
const administration = await startDemoAdministration(appOrigin);
const directoryStore = await startDemoDirectoryStore();

// One short line per request instead of JSON, when pino-pretty is installed (it is a devDependency).
const prettyLogLines = await loadPrettyLogLines();
let gatehouse;
try {
  gatehouse = await createGatehouse({
    logDestination: prettyLogLines?.(),
    // A configuration error is printed below, once, as text.
    logStartupErrors: false,
    env: {
      NODE_ENV: 'development',
      // Telemetry on, with the Prometheus listener on 9464 when free (else a free port): its URL is in the banner.
      ProjectTemplate__Telemetry__Enabled: 'true',
      ProjectTemplate__Telemetry__PrometheusPort: String(await preferredPort(PREFERRED_DEMO_METRICS_PORT, [port])),
      ...process.env,
      ...demoSettings({
        appOrigin,
        issuer: idp.issuer,
        clientId,
        clientSecret,
        displayName: 'the demo identity provider',
      }),
      ...demoSamlSettings({
        appOrigin,
        metadataUrl: samlIdp.metadataUrl,
        displayName: 'the demo SAML identity provider',
        encryption: samlEncryption,
        signing: samlSigning,
      }),
      ...social.env,
      ...organizations.env,
      ...administration.env,
      ...directoryStore.env,
    },
    domainRecordHelp: administration.domainRecordHelp,
  });
} catch (error) {
  await idp.close();
  await samlIdp.close();
  await social.close();
  await organizations.close();
  await administration.close();
  await directoryStore.close();
  if (!(error instanceof StartupError)) throw error;
  // What is wrong, once and as text (as `npm start` says it), without a stack trace.
  console.error(`${error.message}\n${error.problems.map((problem) => `  ${formatProblem(problem)}`).join('\n')}`);
  process.exit(1);
}
try {
  await gatehouse.listen(port, '127.0.0.1');
} catch (error) {
  const failure = listenFailure(error, '127.0.0.1', port);
  if (!failure) throw error;
  console.error(`The demo cannot start: ${failure}`);
  process.exit(1);
}
const metricsUrl = await gatehouse.metricsUrl();
// The start's lines (the connections added) above the banner, not in the middle of it:
// written now, then by pino-pretty's asynchronous stdout writer, which a moment's wait lets finish.
gatehouse.flushLog();
await new Promise((resolve) => setTimeout(resolve, 100));

const displayName =
  gatehouse.identityProviders.find((p) => p.info.key === 'OpenIdConnect')?.info.displayName ??
  'the demo identity provider';
const users = Object.values(idp.users)
  .map((user) => `      ${user.login.padEnd(7)}${user.name}: ${describeAccess(user)}`)
  .join('\n');
const samlLogoutUrl = new URL('/logout', samlIdp.metadataUrl).href;
const { initech, initechProvider } = administration;
const initechPerson = Object.values(initech.users)[0];
const initechLink = await administration.setupLink();
const acmeDirectory = await seedDemoDirectory(appOrigin, administration.apiKey, organizations.acme);
console.log(`
  Gatehouse demo is running.

    Open ${appOrigin}/ and choose "Sign in with ${displayName}".
    Sign in as one of these, with any password:
${users}
    It asks "Share your profile?" (Continue), then shows the starter page. Open /Admin
    as each of them, and sign out from the top bar: it asks "Sign out?" (Yes, sign me out).
    /Admin needs a sign-in with a second factor from the last 10 minutes (step-up,
    docs/step-up.md): opening it sends the admin back to the provider, which asks again;
    fill in "Also confirm with a one-time code" (any 6 digits) to get in. Without the
    code, Gatehouse refuses and says why. The SAML identity provider has the same field.
    Signing out at the demo identity provider itself (${idp.issuer}/session/end)
    signs the browser out of Gatehouse too (back- and front-channel logout).

    Or sign in with "the demo SAML identity provider" (SAML 2.0, the same two users,
    any password), at ${samlIdp.metadataUrl}; or start from its portal,
    ${samlIdp.portalUrl}, as users of an identity provider's app tiles do (IdP-initiated).
    Single logout works both ways: sign out at ${samlLogoutUrl}
    to be signed out of Gatehouse too, or sign out from Gatehouse's top bar to be signed out there as well.
    ${samlEncryption ? 'Its assertions are encrypted to Gatehouse (DEMO_SAML_ENCRYPT=1).' : 'DEMO_SAML_ENCRYPT=1 makes it encrypt its assertions to Gatehouse.'}

    Or sign in with a social provider, each a local server shaped like its vendor
    (same endpoints, fields and errors; it is not the vendor), choosing one of the same
    two accounts on its consent page. Social sign-ins carry no roles: either account is a
    plain user there, and /Admin says access denied.
${social.providers.map(({ key, vendor, server }) => `      ${key}: ${vendor} (local demo server) at ${server.origin}`).join('\n')}

    Or sign in as a person of one of two customer organizations: type the address in
    "Sign in with your work e-mail", and Gatehouse sends you to that organization's own
    identity provider (any password there):
${[organizations.acme, organizations.globex].map(describeOrganization).join('\n')}
    The starter page then shows application:organization, which Gatehouse sets from the
    connection. At Acme's sign-in page, sign in as mallory instead (${organizations.acme.users.mallory?.email},
    an Acme account with another organization's address): Gatehouse refuses it
    (idp.domain_not_allowed), since one organization's identity provider cannot sign in
    another's people. The connections are files in ${organizations.folder}:
    add, change or delete one there and it takes effect within 5 seconds.

    Or be a third organization's IT admin, setting up its single sign-on yourself: Initech's
    OpenID provider runs at ${initech.origin}, and Gatehouse does not know it yet. Open
    Initech's setup link (made for this run; it works once):
      ${initechLink}
    press "Start the setup", and follow the steps: choose "Another OpenID Connect provider";
    under "What it gave you", enter what Initech's provider gives its IT admin:
      Issuer (Authority)  ${initechProvider.issuer}
      Client ID           ${initechProvider.clientId}
      Client secret       ${initechProvider.clientSecret}
      E-mail domain       ${initech.domain}
    Under "Your domains", the page shows the command that publishes the domain's TXT record
    on the demo's DNS server: run it in another terminal, then verify. Run the test sign-in
    as ${initechPerson?.login} (any password) and activate: ${initechPerson?.email} then signs in
    through "Sign in with your work e-mail".
    The link comes from the administration API (docs/demo.md, "The setup portal and the
    administration API"). Its API key, made for this run: ${administration.apiKey}
    Another link for Initech, when this one is spent (the answer's "url"):
${command(administration.newSetupLink)}
    Or add Initech's connection through the API in one command, as an operator's provisioning
    job would instead of the portal (its domain then waits for its TXT record all the same):
${command(administration.addConnection)}
    The connections, Initech's once saved:
${command(administration.listConnections)}

    Directory sync (SCIM 2.0, docs/directory-sync.md): Acme's directory pushed its
    ${acmeDirectory.people} people and ${acmeDirectory.groups} groups at start, as Okta or Entra ID would, kept in
    ${directoryStore.where}.
    Signed in as ${organizations.acme.users.ada?.email}, open "People at acme" from the starter page
    (${appOrigin}/Organizations/acme/People). Then deactivate Ada in Acme's directory:
${command(acmeDirectory.deactivate)}
    Her browser is signed out at its next request, and her next sign-in is refused
    (idp.user_deprovisioned) until her directory makes her active again:
${command(acmeDirectory.reactivate)}
    Acme's SCIM token was made for this run through the administration API. Initech's IT
    admin makes Initech's own on the setup portal's "Directory sync" page, once active.

    ${
      metricsUrl
        ? `Metrics in the Prometheus text format: ${metricsUrl} (a sign-in moves
    gatehouse_authentication_sign_ins_total; docs/operations.md, Telemetry).`
        : 'Telemetry is off (OTEL_SDK_DISABLED or ProjectTemplate__Telemetry__* said so).'
    }

    Sign in as often as you like: the demo lifts the limit of 30 sign-ins started per
    client every 15 minutes (Session:PendingSignInsPerClient), which a deployment keeps.

    Your own configuration against these providers (docs/demo.md, "Your own configuration
    against the demo providers"), e.g. \`npm start\` in another terminal with PORT=${yourAppListenPort}:
      OpenID Connect  Authority ${idp.issuer}, ClientId ${YOUR_APP_CLIENT.clientId},
                      ClientSecret ${YOUR_APP_CLIENT.clientSecret} (registered for ${yourAppOrigin})
      SAML 2.0        MetadataUrl ${samlIdp.metadataUrl}, EntityId ${yourAppOrigin}/Saml2/Acs
                      (it reads your metadata there, so signing and encryption keys just work)

  The demo identity provider runs at ${idp.issuer} (development only).
  Requests are listed below. Ctrl+C stops them all.
`);

/** A printed shell command: its first line indented as a list item, the next ones below it, joined by `\`. */
function command(lines: readonly string[]): string {
  return lines.map((line, index) => `${index === 0 ? '      ' : '        '}${line}`).join(' \\\n');
}

/** `ada@acme.test  Ada Lovelace of Acme Corporation, through its SAML identity provider at <origin>` */
function describeOrganization(organization: DemoOrganization): string {
  const protocol = organization.protocol === 'Saml2' ? 'SAML identity provider' : 'OpenID provider';
  return Object.values(organization.users)
    .filter((user) => user.email.endsWith(`@${organization.domain}`))
    .map(
      (user) =>
        `      ${user.email.padEnd(19)}${user.name} of ${organization.displayName}, through its ${protocol} at ${organization.origin}`,
    )
    .join('\n');
}

function describeAccess(user: { roles: string[]; permissions: string[] }): string {
  const grants = [...user.roles.map((role) => `${role} role`), ...user.permissions.map((p) => `${p} permission`)];
  return grants.length > 0 ? grants.join(', ') : 'no roles, so /Admin says access denied';
}

/** Exits with the one-line reason when `port` cannot be listened on, before anything else starts. */
async function ensureFree(port: number): Promise<void> {
  const probe = createServer();
  const failure = await new Promise<string | undefined>((resolve) => {
    probe.once('error', (error) => resolve(listenFailure(error, '127.0.0.1', port) ?? String(error)));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(undefined)));
  });
  if (failure === undefined) return;
  console.error(`The demo cannot start: ${failure}`);
  process.exit(1);
}

// No drain: nothing balances load onto a demo, and Ctrl+C then a new start must find the port free.
const stop = async () => {
  await gatehouse.shutdown({ drain: false });
  await idp.close();
  await samlIdp.close();
  await social.close();
  await organizations.close();
  await administration.close();
  await directoryStore.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
