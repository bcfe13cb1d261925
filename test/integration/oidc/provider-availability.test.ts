import { expect } from 'chai';
import { startDemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { CLIENT_SECRET, freePort, startOidcApp, type OidcApp } from '../../support/oidc-app.js';

describe('OpenID Connect provider availability and the default challenge scheme', function () {
  this.timeout(20_000);
  let app: OidcApp;
  let idpPort: number;

  before(async () => {
    idpPort = await freePort();
    // The provider is not running yet: discovery fails until it is.
    app = await startOidcApp(`http://127.0.0.1:${idpPort}`, await freePort(), {
      ProjectTemplate__Authentication__DefaultChallengeScheme: 'OpenIdConnect',
    });
  });
  after(() => app.close());

  it('answers a challenge with a 503 page while the provider is down, reports it in readiness, and stays ready', async () => {
    const challenge = await fetch(`${app.url}/External/Challenge?provider=OpenIdConnect`, {
      headers: { accept: 'text/html' },
      redirect: 'manual',
    });
    expect(challenge.status).to.equal(503);
    expect(challenge.headers.get('location')).to.equal(null);
    expect(await challenge.text()).to.contain('<code>idp.unreachable</code>');
    const ready = await fetch(`${app.url}/health/ready`);
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.deep.include({
      checks: { sessionStore: 'up', 'identityProvider:OpenIdConnect': 'down' },
    });
  });

  it('retries discovery on the next attempt once the provider is back', async () => {
    const idp = await startDemoIdentityProvider({
      port: idpPort,
      clients: [
        {
          clientId: 'gatehouse-test',
          clientSecret: CLIENT_SECRET,
          redirectUris: [`${app.url}/signin-oidc`],
          postLogoutRedirectUris: [`${app.url}/`],
        },
      ],
    });
    try {
      const challenge = await fetch(`${app.url}/External/Challenge?provider=OpenIdConnect`, { redirect: 'manual' });
      expect(challenge.status).to.equal(302);
      expect(challenge.headers.get('location')).to.match(new RegExp(`^http://127\\.0\\.0\\.1:${idpPort}/`));
      const ready = (await (await fetch(`${app.url}/health/ready`)).json()) as { checks: Record<string, string> };
      expect(ready.checks['identityProvider:OpenIdConnect']).to.equal('up');

      // DefaultChallengeScheme=OpenIdConnect: a protected page goes straight to the provider, not the login page.
      const home = await fetch(`${app.url}/?tab=1`, { redirect: 'manual' });
      expect(home.headers.get('location')).to.equal(
        `/External/Challenge?provider=OpenIdConnect&returnUrl=${encodeURIComponent('/?tab=1')}`,
      );
    } finally {
      await idp.close();
    }
  });
});
