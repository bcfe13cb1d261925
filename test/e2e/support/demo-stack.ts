import { randomBytes } from 'node:crypto';
import { startDemoIdentityProvider, type DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import {
  startDemoSamlIdentityProvider,
  type DemoSamlIdentityProvider,
} from '../../../scripts/demo-saml-identity-provider.js';
import {
  DEMO_CALLBACK_PATH,
  demoSamlServiceProvider,
  demoSamlSettings,
  demoSettings,
} from '../../../scripts/demo-settings.js';
import { startDemoOrganizations, type DemoOrganizations } from '../../../scripts/demo-organizations.js';
import { createGatehouse, type Gatehouse } from '../../../src/bootstrap/gatehouse.js';
import { freePort } from '../../../scripts/free-port.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';

export interface DemoStack {
  /** `http://127.0.0.1:<port>`: Gatehouse's public origin, also the browser's. */
  appOrigin: string;
  /** The demo identity provider's issuer (another port on 127.0.0.1). */
  issuer: string;
  /** What the login page offers: "Sign in with <displayName>". */
  displayName: string;
  /** The demo SAML identity provider (on 127.0.0.2: another site than the app) and its login-page name. */
  saml: { origin: string; displayName: string };
  /** Acme (SAML, on 127.0.0.3) and Globex (OpenID Connect, on 127.0.0.4): connections from a folder. */
  organizations: DemoOrganizations;
  /** From the provider's discovery document: where RP-initiated logout sends the browser. */
  endSessionEndpoint: string;
  gatehouse: Gatehouse;
  /** Every line Gatehouse logged (level warn and above). */
  logs: string[];
  close(): Promise<void>;
}

/**
 * The demo identity providers (OpenID Connect and SAML, and the two organizations'
 * connections) and a Gatehouse configured against them, as `npm run demo` composes them, all
 * on free loopback ports. The app port is chosen first because the
 * provider's client registration needs the redirect URIs before Gatehouse listens.
 */
export async function startDemoStack(): Promise<DemoStack> {
  const appPort = await freePort();
  const appOrigin = `http://127.0.0.1:${appPort}`;
  const clientId = 'gatehouse-e2e';
  const clientSecret = randomBytes(24).toString('base64url');
  const displayName = 'the demo identity provider';
  const idp: DemoIdentityProvider = await startDemoIdentityProvider({
    port: 0,
    clients: [
      {
        clientId,
        clientSecret,
        redirectUris: [`${appOrigin}${DEMO_CALLBACK_PATH}`],
        postLogoutRedirectUris: [`${appOrigin}/`],
      },
    ],
  });
  // Gatehouse's SAML signing pair: AuthnRequests and single-logout messages are signed with it.
  const samlSigning = makeSigningCredential({ commonName: 'gatehouse-demo-sp' });
  const samlIdp: DemoSamlIdentityProvider = await startDemoSamlIdentityProvider({
    serviceProviders: [demoSamlServiceProvider(appOrigin, samlSigning)],
  });
  const saml = { origin: new URL(samlIdp.metadataUrl).origin, displayName: 'the demo SAML identity provider' };
  const organizations = await startDemoOrganizations(appOrigin);
  const logs: string[] = [];
  let gatehouse: Gatehouse | undefined;
  try {
    gatehouse = await createGatehouse({
      env: {
        NODE_ENV: 'test',
        ProjectTemplate__Logging__Level: 'warn',
        ...demoSettings({ appOrigin, issuer: idp.issuer, clientId, clientSecret, displayName }),
        ...demoSamlSettings({
          appOrigin,
          metadataUrl: samlIdp.metadataUrl,
          displayName: saml.displayName,
          signing: samlSigning,
        }),
        ...organizations.env,
      },
      logDestination: { write: (line: string) => void logs.push(line) },
    });
    await gatehouse.listen(appPort, '127.0.0.1');
    const discovery: unknown = await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json();
    const endSessionEndpoint =
      typeof discovery === 'object' &&
      discovery !== null &&
      'end_session_endpoint' in discovery &&
      typeof discovery.end_session_endpoint === 'string'
        ? discovery.end_session_endpoint
        : '';
    if (endSessionEndpoint === '') throw new Error('the demo identity provider publishes no end_session_endpoint');
    return {
      appOrigin,
      issuer: idp.issuer,
      displayName,
      saml,
      organizations,
      endSessionEndpoint,
      gatehouse,
      logs,
      close: async () => {
        await gatehouse?.shutdown();
        await idp.close();
        await samlIdp.close();
        await organizations.close();
      },
    };
  } catch (error) {
    await gatehouse?.shutdown();
    await idp.close();
    await samlIdp.close();
    await organizations.close();
    throw error;
  }
}
