/**
 * `npm run demo`: a newcomer's first minute. Starts a real OpenID provider (oidc-provider,
 * a devDependency), a SAML 2.0 identity provider (scripts/demo-saml-identity-provider.ts)
 * and three local servers shaped like Microsoft, Amazon and GitHub, all on loopback with
 * the same two demo users, then Gatehouse configured against them (the social providers
 * through their endpoint overrides). Development only: it refuses
 * NODE_ENV=production, and nothing in src/ imports it.
 */
import { randomBytes } from 'node:crypto';
import { createGatehouse } from '../src/bootstrap/gatehouse.js';
import { formatProblem, StartupError } from '../src/bootstrap/startup-error.js';
import { startDemoIdentityProvider } from './demo-identity-provider.js';
import { startDemoSamlIdentityProvider } from './demo-saml-identity-provider.js';
import { DEMO_CALLBACK_PATH, demoSamlEntityId, demoSamlSettings, demoSettings } from './demo-settings.js';
import { startDemoSocialProviders } from './demo-social-providers.js';

if ((process.env.NODE_ENV ?? 'development') === 'production') {
  console.error('npm run demo is for development only; it will not run with NODE_ENV=production.');
  process.exit(1);
}

const port = Number(process.env.PORT ?? 3000);
const appOrigin = `http://127.0.0.1:${port}`;
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
    },
  ],
});

const samlIdp = await startDemoSamlIdentityProvider({
  port: Number(process.env.DEMO_SAML_IDP_PORT ?? 0),
  serviceProviders: [{ entityId: demoSamlEntityId(appOrigin), acsUrl: `${appOrigin}/Saml2/Acs` }],
});

const social = await startDemoSocialProviders(appOrigin, (vendor) => `${vendor} (local demo server)`);

let gatehouse;
try {
  gatehouse = await createGatehouse({
    env: {
      NODE_ENV: 'development',
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
      }),
      ...social.env,
    },
  });
} catch (error) {
  if (error instanceof StartupError) console.error(error.problems.map(formatProblem).join('\n'));
  await idp.close();
  await samlIdp.close();
  await social.close();
  throw error;
}
await gatehouse.listen(port, '127.0.0.1');

console.log(`
  Gatehouse demo is running.

    Open ${appOrigin}/ and sign in with "the demo identity provider":
      admin  (Ada Admin: Administrator role, application.manage permission)
      user   (Uma User: no roles)
    Any password is accepted. The provider runs at ${idp.issuer}.

    Or sign in with "the demo SAML identity provider" (SAML 2.0, the same two users,
    any password), at ${samlIdp.metadataUrl}.

    Or sign in with a social provider, each a local server shaped like its vendor
    (same endpoints, fields and errors; it is not the vendor), choosing the same
    two accounts on its consent page:
${social.providers.map(({ key, vendor, server }) => `      ${key}: ${vendor} (local demo server) at ${server.origin}`).join('\n')}

  Ctrl+C stops them all.
`);

const stop = async () => {
  await gatehouse.shutdown();
  await idp.close();
  await samlIdp.close();
  await social.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
