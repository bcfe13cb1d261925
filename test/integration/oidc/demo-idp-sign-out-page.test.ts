/**
 * The demo OpenID provider's own sign-out page tells the truth about where the person
 * came from: sent by the application (RP-initiated logout), they have left it; opened
 * directly, they have not left anything yet.
 */
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { startDemoIdentityProvider, type DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { CookieJar, driveOidcLogin } from '../../support/drive-oidc-login.js';

describe('the demo OpenID provider’s sign-out page', function () {
  this.timeout(20_000);
  let idp: DemoIdentityProvider;

  before(async () => {
    idp = await startDemoIdentityProvider({
      port: 0,
      clients: [
        {
          clientId: 'app',
          clientSecret: 'app-secret-long-enough-for-the-demo',
          redirectUris: ['http://127.0.0.1:1/signin-oidc'],
          postLogoutRedirectUris: ['http://127.0.0.1:1/'],
        },
      ],
    });
  });
  after(() => idp?.close());

  /** A browser signed in at the provider (the sign-out page shows only to one). */
  async function signedInAtProvider(): Promise<CookieJar> {
    const jar = new CookieJar();
    const verifier = randomBytes(32).toString('base64url');
    const authorization = new URL(`${idp.issuer}/auth`);
    for (const [name, value] of Object.entries({
      client_id: 'app',
      response_type: 'code',
      scope: 'openid',
      redirect_uri: 'http://127.0.0.1:1/signin-oidc',
      state: 'state-1',
      nonce: 'nonce-1',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }))
      authorization.searchParams.set(name, value);
    await driveOidcLogin(authorization.href, 'user', jar);
    return jar;
  }

  it('opened directly: asks to sign out of the provider, without saying the application was left', async () => {
    const html = await (await (await signedInAtProvider()).fetch(`${idp.issuer}/session/end`)).text();
    expect(html).to.contain('Sign out?').and.contain('Sign out of the demo identity provider');
    expect(html).not.to.contain('You have left the application');
  });

  it('sent by the application (RP-initiated logout): says the application was left', async () => {
    const query = new URLSearchParams({ client_id: 'app', post_logout_redirect_uri: 'http://127.0.0.1:1/' });
    const html = await (await (await signedInAtProvider()).fetch(`${idp.issuer}/session/end?${query}`)).text();
    expect(html).to.contain('You have left the application');
  });
});
