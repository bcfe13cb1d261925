import { expect } from 'chai';
import { startMisbehavingOidcProvider, type MisbehavingProvider } from '../../support/misbehaving-oidc-provider.js';
import { freePort, TestBrowser } from '../../support/oidc-app.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

const OIDC = 'ProjectTemplate__Authentication__Providers__OpenIdConnect__';

/**
 * A provider whose discovery document lists no `token_endpoint_auth_methods_supported`
 * supports `client_secret_basic` only (RFC 8414 2, OpenID Connect Discovery 3). A careless
 * provider omits the list; Gatehouse configured with `client_secret_post` must then refuse
 * (503, before any browser is sent to the provider), not guess that the method would do.
 */
describe('a discovery document that lists no token endpoint authentication methods', function () {
  this.timeout(20_000);
  let op: MisbehavingProvider;
  let app: RunningGatehouse;

  before(async () => {
    const port = await freePort();
    op = await startMisbehavingOidcProvider({
      clientId: 'gatehouse-test',
      clientSecret: 'unlisted-method-secret',
      redirectUri: `http://127.0.0.1:${port}/signin-oidc`,
    });
    app = await startGatehouse(
      {
        ProjectTemplate__Hosting__PublicOrigin: `http://127.0.0.1:${port}`,
        ProjectTemplate__Authentication__HttpTimeoutSeconds: '2',
        [`${OIDC}Enabled`]: 'true',
        [`${OIDC}Authority`]: op.issuer,
        [`${OIDC}ClientId`]: 'gatehouse-test',
        [`${OIDC}ClientSecret`]: 'unlisted-method-secret',
        [`${OIDC}ClientAuthentication`]: 'client_secret_post',
      },
      { port },
    );
  });
  after(async () => {
    await app.close();
    await op.close();
  });

  it('refuses client_secret_post (503 idp.client_authentication_unsupported), nothing sent on to the provider', async () => {
    op.discoveryOmits.add('token_endpoint_auth_methods_supported');
    const challenge = await new TestBrowser().get(`${app.url}/External/Challenge?provider=OpenIdConnect`, {
      accept: 'text/html',
    });
    expect(challenge.status).to.equal(503);
    const page = (await challenge.text()).replace(/&#39;|&quot;/g, '');
    expect(page).to.contain('idp.client_authentication_unsupported');
    expect(page).to.contain(
      'does not accept client_secret_post at its token endpoint (it accepts client_secret_basic)',
    );
    expect(op.requests.discovery, 'the discovery document was read').to.be.greaterThan(0);
    expect(op.requests.authorization + op.requests.token, 'calls past discovery').to.equal(0);
  });
});
